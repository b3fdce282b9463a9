import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

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
 * (`createServer`'s `IncomingMessage` and `ServerResponse` options); given classes
 * whose prototypes are Express's, Express's `setPrototypeOf` finds nothing to change and the
 * objects keep the hidden classes of the requests before them (docs/performance.md, "Ninth
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
    this.setHttpServer(createServer(installExpressMessageClasses(app), app));
  }
}

/**
 * Subclasses of Node's two message classes for its HTTP server, made Express's own: each one's
 * prototype inherits from what Express had as `app.request` / `app.response` (its methods, `app`)
 * and takes that place, so Express's per-request `setPrototypeOf` is handed the prototype the
 * object already has.
 *
 * Subclasses rather than plain functions that run Node's constructors on a given prototype: V8
 * sizes an object's in-object fields from the class chain of its constructor, and a wrapper
 * function left room for none, so every response (whose constructor stores many symbol-keyed
 * fields) fell back to dictionary mode (docs/performance.md, "Ninth pass").
 */
export function installExpressMessageClasses(app: Pick<Express, 'request' | 'response'>): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  class ExpressIncomingMessage extends IncomingMessage {}
  class ExpressServerResponse extends ServerResponse {}
  Object.setPrototypeOf(ExpressIncomingMessage.prototype, app.request);
  Object.setPrototypeOf(ExpressServerResponse.prototype, app.response);
  app.request = ExpressIncomingMessage.prototype as unknown as Express['request'];
  app.response = ExpressServerResponse.prototype as unknown as Express['response'];
  return {
    IncomingMessage: ExpressIncomingMessage,
    ServerResponse: ExpressServerResponse as typeof ServerResponse,
  };
}
