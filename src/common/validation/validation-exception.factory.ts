import type { ValidationError } from 'class-validator';
import { GatewayException } from '../errors/gateway.exception';

/**
 * ValidationPipe's exceptionFactory: reports the first invalid field as OpenAI does, with `param`
 * as a path such as `messages[1].content`.
 */
export function validationExceptionFactory(errors: ValidationError[]): GatewayException {
  const first = firstFailure(errors, '');
  if (!first) return new GatewayException('invalid_parameter');
  const message = first.message.replace(first.property, first.path);
  return new GatewayException('invalid_parameter', {
    param: first.path,
    message: `Invalid parameter: ${message}.`,
  });
}

function firstFailure(
  errors: ValidationError[],
  prefix: string,
): { path: string; property: string; message: string } | undefined {
  for (const error of errors) {
    const path = /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : prefix
        ? `${prefix}.${error.property}`
        : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0)
      return { path, property: error.property, message: messages[messages.length - 1] };
    const nested = firstFailure(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}
