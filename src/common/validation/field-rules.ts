import { invalidParameter } from './invalid-parameter';

/**
 * A check of one body field by hand: it returns the value typed, or throws 400 invalid_parameter
 * naming `path` (e.g. `tools[2].name`). The request bodies are validated with these rather than
 * class-validator, which is quadratic in an object's keys (chat-completion-body.pipe.ts).
 */
export type Rule<T> = (value: unknown, path: string) => T;

/**
 * The largest completion cap (max_tokens and its kin) a request may ask for: a 32-bit integer,
 * which every provider's API takes, and small enough that a hold (prompt + cap × n choices, in
 * tokens or in dollars) stays an exact number; 1e308 would overflow it to Infinity.
 */
export const MAX_COMPLETION_TOKENS = 2_147_483_647;

export function boolean(): Rule<boolean> {
  return (value, path) => {
    if (typeof value !== 'boolean') throw invalidParameter(path, 'must be a boolean value');
    return value;
  };
}

export function string(maxLength?: number): Rule<string> {
  return (value, path) => {
    if (typeof value !== 'string') throw invalidParameter(path, 'must be a string');
    if (maxLength !== undefined && value.length > maxLength)
      throw invalidParameter(path, `must be shorter than or equal to ${maxLength} characters`);
    return value;
  };
}

export function nonEmptyString(maxLength?: number): Rule<string> {
  const base = string(maxLength);
  return (value, path) => {
    const text = base(value, path);
    if (text.length === 0) throw invalidParameter(path, 'must be a non-empty string');
    return text;
  };
}

export function oneOf<T extends string>(values: readonly T[]): Rule<T> {
  return (value, path) => {
    if (typeof value !== 'string' || !values.includes(value as T))
      throw invalidParameter(path, `must be one of the following values: ${values.join(', ')}`);
    return value as T;
  };
}

export function number(min: number, max: number): Rule<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw invalidParameter(path, 'must be a number');
    if (value < min || value > max)
      throw invalidParameter(path, `must be between ${min} and ${max}`);
    return value;
  };
}

export function integer(min?: number, max?: number): Rule<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw invalidParameter(path, 'must be an integer number');
    if (min !== undefined && value < min)
      throw invalidParameter(path, `must not be less than ${min}`);
    if (max !== undefined && value > max)
      throw invalidParameter(path, `must not be greater than ${max}`);
    return value;
  };
}

/**
 * Runs each optional field's rule, in the rules' order (the order errors are reported), and sets
 * the checked value on `request`. `null` counts as absent, as OpenAI treats it.
 */
export function readOptionalFields<T extends object>(
  body: Record<string, unknown>,
  rules: { [field: string]: Rule<unknown> },
  request: T,
): T {
  for (const [field, rule] of Object.entries(rules)) {
    const value = body[field];
    if (value != null) (request as Record<string, unknown>)[field] = rule(value, field);
  }
  return request;
}
