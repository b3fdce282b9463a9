import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';

/**
 * The client's end of one request: whether it left before its response was complete, and a way
 * to hear when it does, so the upstream call is cancelled instead of running on for nobody.
 * A listener on the response's own 'close' event rather than an AbortSignal per request: the
 * one abort signal a request needs is its upstream attempt's (pipeline/request-deadlines.ts),
 * which this connection's leaving aborts.
 */
export interface ClientConnection {
  /** Why the request is abandoned once the client has left mid-response; undefined until then. */
  readonly lostReason: ClientDisconnectedError | undefined;
  /**
   * Calls `listener` once, if the client leaves mid-response from now on (as an abort listener
   * added after the abort, it is never called for a client already gone: check `lostReason`).
   * Returns the function that stops listening.
   */
  onLost(listener: (reason: ClientDisconnectedError) => void): () => void;
}

export function clientConnection(response: ServerResponse<IncomingMessage>): ClientConnection {
  return new ResponseConnection(response);
}

class ResponseConnection implements ClientConnection {
  lostReason: ClientDisconnectedError | undefined = undefined;

  constructor(private readonly response: ServerResponse<IncomingMessage>) {
    // Made once the body is parsed and the guards have run: the client may be gone already.
    if (response.req.socket.destroyed && !response.writableFinished) {
      this.lostReason = new ClientDisconnectedError();
      return;
    }
    // Registered before any onLost listener, so those find lostReason set when they run.
    response.once('close', () => {
      if (!response.writableFinished) this.lostReason = new ClientDisconnectedError();
    });
  }

  onLost(listener: (reason: ClientDisconnectedError) => void): () => void {
    if (this.lostReason) return noop;
    const onClose = () => {
      if (this.lostReason) listener(this.lostReason);
    };
    this.response.once('close', onClose);
    return () => this.response.removeListener('close', onClose);
  }
}

function noop(): void {}
