import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { VirtualKeyView } from '../keys/virtual-key.types';

declare module 'express' {
  interface Request {
    virtualKey?: VirtualKeyView;
  }
}

/** The virtual key the ApiKeyGuard authenticated. */
export const CurrentKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): VirtualKeyView =>
    context.switchToHttp().getRequest<Request>().virtualKey!,
);
