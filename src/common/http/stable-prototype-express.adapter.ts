import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

/**
 * Nest's Express adapter, with the HTTP server building each request and response on Express's
 * own prototypes (`app.request`, `app.response`) from the start.
 *
 * Express adds its methods (`res.json`, `req.get`, ...) by re-pointing the prototype of every
 * request and response it is handed (`Object.setPrototypeOf` in its router). V8 gives an object
 * whose prototype changes a hidden class of its own, so no two requests shared one and every
 * property access on them, in Express, Nest, Node's streams and the gateway, missed V8's inline
 * caches. Given classes whose prototypes are Express's (`createServer`'s `IncomingMessage` and
 * `ServerResponse` options, Express's documented `app.request` / `app.response`), Express's
 * `setPrototypeOf` finds nothing to change. Only public APIs: Node's server options, Express's
 * app prototypes and Nest's `initHttpServer`/`setHttpServer`. Measured in docs/performance.md
 * (deviations table); the spec fails if Express stops using `app.request` as the prototype.
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
 * object already has. Subclasses, not functions that run Node's constructors on a given
 * prototype: V8 sizes an object's in-object fields from its constructor's class chain.
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
