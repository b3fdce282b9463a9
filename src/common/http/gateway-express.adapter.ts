import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { SseStream } from '../sse/sse-stream';

/**
 * Nest's Express adapter, with one addition: an event stream (an SseStream, which the SSE
 * interceptor makes of a streaming handler's result) writes itself to the response, as Nest's
 * adapter pipes a StreamableFile into it. Every other result takes Nest's own path: an object
 * goes out through Express's res.json().
 */
export class GatewayExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!(body instanceof SseStream)) return super.reply(response, body, statusCode);
    if (statusCode) response.statusCode = statusCode;
    body.writeTo(response);
    return response;
  }
}
