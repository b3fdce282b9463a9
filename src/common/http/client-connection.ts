import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';

/**
 * The client's end of one request: whether it left before its response was complete, and a way
 * to hear when it does, so the upstream call is cancelled instead of running on for nobody.
 *
 * Not an AbortSignal: on Node 20 an AbortController costs about 3 us to create and each abort
 * listener about 3 us to add and remove (EventTarget), against 0.1 us for a listener on the
 * response's own EventEmitter, and each AbortSignal gets a hidden class of its own (Node builds it
 * with Object.setPrototypeOf; docs/performance.md, "Ninth pass"). The one abort signal a request
 * needs is its attempt's (AttemptDeadline), which undici and the concurrency gates take; since the
 * twelfth pass a plain AttemptAbortSignal, not Node's (common/async/upstream-abort-signal.ts).
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
