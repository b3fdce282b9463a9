import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';

export type SetResponseHeaders = (headers: Record<string, string>) => void;

/**
 * Lets a service add headers to the response it does not hold (the handler never takes @Res(),
 * which would bypass interceptors). Headers set after the response started are dropped.
 * Node's setHeader directly: the values are strings and none is Content-Type, so Express's
 * res.set (value coercion, charset handling per header) adds nothing but CPU on every request
 * (docs/performance.md).
 */
export const ResponseHeaders = createParamDecorator(
  (_data: unknown, context: ExecutionContext): SetResponseHeaders => {
    const response = context.switchToHttp().getResponse<Response>();
    return (headers) => {
      if (response.headersSent) return;
      for (const name in headers) response.setHeader(name, headers[name]);
    };
  },
);
