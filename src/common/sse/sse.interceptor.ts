import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { SseStream, type SseStreamOptions } from './sse-stream';
import { AppConfig } from '../../config/app-config';

/**
 * Turns a streaming handler's result into server-sent events: a handler result that is an async
 * iterable becomes an SseStream, which the HTTP adapter writes to the response as an event stream
 * (GatewayExpressAdapter.reply); anything else passes untouched. Its items are
 * batches (arrays) of events that are ready together, such as the chunks of one upstream read:
 * each batch leaves in one write. Nest's @Sse() does not fit: it writes `id:` lines and takes one
 * event per step.
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
        map((result) => (isAsyncIterable(result) ? this.toEventStream(result, response) : result)),
      );
  }

  private toEventStream(batches: AsyncIterable<readonly unknown[]>, response: Response): SseStream {
    const options: SseStreamOptions = {
      heartbeatMs: this.heartbeatMs,
      stallTimeoutMs: this.stallTimeoutMs,
      onError: (error) =>
        this.logger.warn(
          `request ${response.getHeader('x-request-id')}: stream failed after the first chunk: ${(error as Error)?.message ?? error}`,
        ),
    };
    return new SseStream(batches[Symbol.asyncIterator](), options);
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<readonly unknown[]> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}
