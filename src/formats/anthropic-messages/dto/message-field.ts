import { GatewayException } from '../../../common/errors/gateway.exception';

// Field checks for Messages API bodies. Errors name the field as Anthropic does, dotted with
// numeric indexes (`messages.0.content.1.source`), so a client's own error handling reads them
// as it reads the API's; `param` keeps the same path for logs.

/** 400 invalid_request_error naming the field. */
export function invalidField(path: string, problem: string): GatewayException {
  return new GatewayException('invalid_parameter', { param: path, message: `${path}: ${problem}` });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, path: string): Record<string, unknown> {
  if (value === undefined) throw invalidField(path, 'Field required');
  if (!isObject(value)) throw invalidField(path, 'Input should be an object');
  return value;
}

export function requireString(value: unknown, path: string): string {
  if (value === undefined) throw invalidField(path, 'Field required');
  if (typeof value !== 'string') throw invalidField(path, 'Input should be a valid string');
  return value;
}

export function optionalString(value: unknown, path: string): void {
  if (value != null && typeof value !== 'string')
    throw invalidField(path, 'Input should be a valid string');
}

export function optionalBoolean(value: unknown, path: string): void {
  if (value != null && typeof value !== 'boolean')
    throw invalidField(path, 'Input should be a valid boolean');
}

export function requireArray(value: unknown, path: string): unknown[] {
  if (value === undefined) throw invalidField(path, 'Field required');
  if (!Array.isArray(value)) throw invalidField(path, 'Input should be a valid list');
  return value;
}

export function requireInteger(
  value: unknown,
  path: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) throw invalidField(path, 'Field required');
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw invalidField(path, 'Input should be a valid integer');
  if (value < min) throw invalidField(path, `Input should be greater than or equal to ${min}`);
  if (value > max) throw invalidField(path, `Input should be less than or equal to ${max}`);
  return value;
}

export function requireNumber(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw invalidField(path, 'Input should be a valid number');
  if (value < min || value > max)
    throw invalidField(path, `Input should be between ${min} and ${max}`);
  return value;
}

/** The block's or source's `type`, checked against the values this place accepts. */
export function requireTag(value: unknown, path: string, allowed?: readonly string[]): string {
  const tag = requireString(value, path);
  if (allowed && !allowed.includes(tag))
    throw invalidField(path, `Input should be ${allowed.map((item) => `'${item}'`).join(', ')}`);
  return tag;
}
