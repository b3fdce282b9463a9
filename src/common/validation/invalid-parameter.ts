import { GatewayException } from '../errors/gateway.exception';

/** 400 invalid_parameter naming the field, worded as class-validator's messages are. */
export function invalidParameter(param: string, problem: string): GatewayException {
  return new GatewayException('invalid_parameter', {
    param,
    message: `Invalid parameter: ${param} ${problem}.`,
  });
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
