import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';

/**
 * An AbortSignal that fires when the client disconnects before the response is complete, so the
 * upstream request is cancelled instead of running on for nobody.
 */
export function clientAbortSignal(response: ServerResponse<IncomingMessage>): AbortSignal {
  const controller = new AbortController();
  // Called once the body is parsed and the guards have run: the client may be gone already.
  if (response.req.socket.destroyed && !response.writableFinished) {
    controller.abort(new ClientDisconnectedError());
    return controller.signal;
  }
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new ClientDisconnectedError());
  });
  return controller.signal;
}
