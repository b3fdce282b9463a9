import type { Response } from 'express';
import { SseStream } from '../sse/sse-stream';
import { StablePrototypeExpressAdapter } from './stable-prototype-express.adapter';

/**
 * The gateway's HTTP adapter: Nest's Express adapter on Express's prototypes from the start
 * (StablePrototypeExpressAdapter), where an event stream (an SseStream, which the SSE interceptor
 * makes of a streaming handler's result) writes itself to the response, as Nest's adapter pipes
 * a StreamableFile into it. Every other result takes Nest's own path: an object goes out through
 * Express's res.json().
 */
export class GatewayExpressAdapter extends StablePrototypeExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!(body instanceof SseStream)) return super.reply(response, body, statusCode);
    if (statusCode) response.statusCode = statusCode;
    body.writeTo(response);
    return response;
  }
}
