import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';

/**
 * An AbortSignal that fires when the client disconnects before the response is complete, so the
 * upstream request is cancelled instead of running on for nobody.
 */
export const ClientAbortSignal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AbortSignal => {
    const response = context.switchToHttp().getResponse<Response>();
    const controller = new AbortController();
    // Parameters resolve after body parsing, the guards and validation: the client may be gone.
    if (response.req.socket.destroyed && !response.writableFinished) {
      controller.abort(new ClientDisconnectedError());
      return controller.signal;
    }
    response.once('close', () => {
      if (!response.writableFinished) controller.abort(new ClientDisconnectedError());
    });
    return controller.signal;
  },
);
