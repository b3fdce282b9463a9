import { StreamableFile } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SseStream } from '../sse/sse-stream';
import { StablePrototypeExpressAdapter } from './stable-prototype-express.adapter';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The gateway's HTTP adapter: Express's prototypes from the start (StablePrototypeExpressAdapter),
 * and a handler's object result sent as JSON without Express's `res.json()` where that would do
 * exactly what is done here.
 *
 * `res.json()` on an answer with no Content-Type yet sets `application/json`, which Express runs
 * through mime-types' charset lookup, then `res.send()` parses that header back with content-type
 * to set the charset again and formats it once more: three parses of a header whose result is
 * always `application/json; charset=utf-8` (node_modules/express/lib/response.js). Here the
 * header is set once, with the same value, the same Content-Length and the same bytes. Whatever
 * Express would treat differently takes its path: a HEAD, a conditional GET, a status without a
 * body (204, 205, 304), a Content-Type already set, the app's JSON or ETag settings, a stream
 * and an Error (docs/performance.md, "Twelfth pass").
 *
 * An event stream (SseStream, from the SSE interceptor) writes itself to the response, as a
 * StreamableFile is piped into it.
 */
export class GatewayExpressAdapter extends StablePrototypeExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body instanceof SseStream) {
      if (statusCode) response.statusCode = statusCode;
      body.writeTo(response);
      return response;
    }
    if (!isPlainResult(body)) return super.reply(response, body, statusCode);
    const status = statusCode ?? response.statusCode;
    if (!sendsAsIs(response, status)) return super.reply(response, body, statusCode);
    const text = JSON.stringify(body) as string | undefined;
    // A toJSON() that returns undefined: Express sends an empty answer; so does its path.
    if (text === undefined) return super.reply(response, body, statusCode);
    // Encoded once: a string's length would be counted here and again by Node's end().
    const bytes = Buffer.from(text, 'utf8');
    response.statusCode = status;
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    response.setHeader('Content-Length', bytes.length);
    response.end(bytes);
    return response;
  }
}

/** An object Nest hands to `res.json()` as it is: not a stream, not an Error (which it replaces). */
function isPlainResult(body: unknown): body is object {
  return (
    typeof body === 'object' &&
    body !== null &&
    !(body instanceof StreamableFile) &&
    !(body instanceof Error)
  );
}

/** Whether `res.json()` would send `JSON.stringify(body)` as `application/json; charset=utf-8`. */
function sendsAsIs(response: Response, status: number): boolean {
  if (status === 204 || status === 205 || status === 304) return false;
  if (response.getHeader('Content-Type') !== undefined) return false;
  const request = response.req as Request;
  const method = request.method;
  if (method === 'HEAD') return false;
  // A GET with a validator may be answered 304 by Express (`req.fresh`).
  if (
    method === 'GET' &&
    (request.headers['if-none-match'] !== undefined ||
      request.headers['if-modified-since'] !== undefined)
  )
    return false;
  const app = response.app;
  return (
    !app.get('json escape') &&
    app.get('json replacer') === undefined &&
    app.get('json spaces') === undefined &&
    typeof app.get('etag fn') !== 'function'
  );
}
