import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { EventStream } from './sse-encoder';
import { SseStream, type SseStreamOptions } from './sse-stream';
import { AppConfig } from '../../config/app-config';

/**
 * The one place a stream is framed: a handler result that is an EventStream (its events and its
 * wire format's encoder) becomes an SseStream, which the HTTP adapter writes to the response as
 * an event stream (GatewayExpressAdapter.reply), with the configured heartbeats and stall
 * timeout; anything else passes untouched. Nest's @Sse() does not fit: it writes `id:` lines,
 * takes one event per step, and is fixed per route while a body's `stream` decides here.
 */
@Injectable()
export class SseInterceptor implements NestInterceptor {
  private readonly logger = new Logger('SSE');
  private readonly heartbeatMs: number;
  private readonly stallTimeoutMs: number;

  constructor(config: AppConfig) {
    this.heartbeatMs = config.SSE_HEARTBEAT_MS;
    this.stallTimeoutMs = config.SSE_STALL_TIMEOUT_MS;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse<Response>();
    return next
      .handle()
      .pipe(
        map((result) => (result instanceof EventStream ? this.toSse(result, response) : result)),
      );
  }

  private toSse({ source, encoder }: EventStream, response: Response): SseStream {
    const options: SseStreamOptions = {
      heartbeatMs: this.heartbeatMs,
      stallTimeoutMs: this.stallTimeoutMs,
      onError: (error) =>
        this.logger.warn(
          `request ${response.getHeader('x-request-id')}: stream failed after the first chunk: ${(error as Error)?.message ?? error}`,
        ),
    };
    return new SseStream(source, encoder, options);
  }
}
