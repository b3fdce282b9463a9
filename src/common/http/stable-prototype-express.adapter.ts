import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Nest's Express adapter, with the HTTP server building each request and response on Express's
 * own prototypes (`app.request`, `app.response`) from the start.
 *
 * Express adds its methods (`res.json`, `req.get`, ...) by re-pointing the prototype of every
 * request and response it is handed (`Object.setPrototypeOf` in its `app.handle`). V8 gives an
 * object whose prototype changes a hidden class of its own: no two requests, and no two
 * responses, shared one, so every property read or write on them in Express, Nest, Node's streams
 * and the gateway missed its inline cache and took V8's slow lookup, and each property added
 * built a new hidden class. Node's HTTP server takes the classes it instantiates
 * (`createServer`'s `IncomingMessage` and `ServerResponse` options, Node 18.7+); given classes
 * whose prototypes already are Express's, Express's `setPrototypeOf` finds nothing to change and
 * the objects keep the hidden classes of the requests before them (docs/performance.md, "Ninth
 * pass": CPU per request of an Express hello-world 2.6x lower on this VM).
 */
export class StablePrototypeExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // The gateway serves plain HTTP (TLS belongs to what fronts it) and sets neither option, so
    // neither of Nest's two other ways to build the server is carried over.
    if (options?.httpsOptions || options?.forceCloseConnections)
      throw new Error(
        'StablePrototypeExpressAdapter supports neither httpsOptions nor forceCloseConnections',
      );
    const app = this.getInstance<Express>();
    this.setHttpServer(createServer(expressMessageClasses(app), app));
  }
}

/** Constructors for Node's HTTP server whose instances have `app.request` / `app.response` as prototype. */
export function expressMessageClasses(app: Pick<Express, 'request' | 'response'>): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  // Node's two classes are plain constructor functions (lib/_http_incoming.js,
  // lib/_http_server.js), so a function can run them on an object it was given; a `class`
  // could not take an existing object as its prototype (its `prototype` is read-only).
  const incoming = IncomingMessage as unknown as (this: object, socket: Socket) => void;
  const outgoing = ServerResponse as unknown as (
    this: object,
    request: IncomingMessage,
    options?: object,
  ) => void;
  function ExpressIncomingMessage(this: object, socket: Socket): void {
    incoming.call(this, socket);
  }
  function ExpressServerResponse(this: object, request: IncomingMessage, options?: object): void {
    outgoing.call(this, request, options);
  }
  ExpressIncomingMessage.prototype = app.request;
  ExpressServerResponse.prototype = app.response;
  return {
    IncomingMessage: ExpressIncomingMessage as unknown as typeof IncomingMessage,
    ServerResponse: ExpressServerResponse as unknown as typeof ServerResponse,
  };
}
