import {
  CallHandler,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { sseReadable } from './sse-readable';

/**
 * Lets one route answer JSON or server-sent events depending on the request: a handler result
 * that is an async iterable is written as an event stream, anything else passes untouched. Its
 * items are batches (arrays) of events that are ready together, such as the chunks of one
 * upstream read: each batch leaves in one write. Nest's @Sse() does not fit: it is fixed per
 * route, writes `id:` lines and takes one event per step.
 */
@Injectable()
export class SseInterceptor implements NestInterceptor {
  private readonly logger = new Logger('SSE');
  private readonly heartbeatMs: number;
  private readonly stallTimeoutMs: number;

  constructor(config: ConfigService) {
    this.heartbeatMs = config.get<number>('SSE_HEARTBEAT_MS') ?? 15_000;
    this.stallTimeoutMs = config.get<number>('SSE_STALL_TIMEOUT_MS') ?? 120_000;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse<Response>();
    return next
      .handle()
      .pipe(
        map((result) => (isAsyncIterable(result) ? this.toEventStream(result, response) : result)),
      );
  }

  private toEventStream(
    batches: AsyncIterable<readonly unknown[]>,
    response: Response,
  ): StreamableFile {
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('X-Accel-Buffering', 'no');
    this.disconnectStalledClient(response);
    const requestId = response.getHeader('x-request-id');
    const source = batches[Symbol.asyncIterator]();
    const body = sseReadable(source, {
      heartbeatMs: this.heartbeatMs,
      onError: (error) =>
        this.logger.warn(
          `request ${requestId}: stream failed after the first chunk: ${(error as Error)?.message ?? error}`,
        ),
      beforePush: corkUntilNextTurn(response),
    });
    return new StreamableFile(body);
  }

  /**
   * Backpressure pauses the upstream read while the client does not read, and undici suspends its
   * body timeout while paused: a client that stops reading would hold its upstream connection
   * for ever. A socket with no traffic at all for the stall timeout (heartbeats count as traffic)
   * is closed, which aborts the upstream.
   */
  private disconnectStalledClient(response: Response): void {
    const socket = response.socket;
    if (!socket || !(this.stallTimeoutMs > 0)) return;
    const onStall = () => response.destroy();
    socket.setTimeout(this.stallTimeoutMs, onStall);
    response.once('close', () => {
      socket.off('timeout', onStall);
      socket.setTimeout(0);
    });
  }
}

/**
 * Frames produced in one event-loop turn (typically the events of one upstream read) leave in one
 * socket write instead of one write each: the response is corked at the first and uncorked once
 * the turn's I/O callbacks are done (setImmediate). Per-frame writes were the largest single CPU
 * cost of a stream (docs/performance.md).
 */
function corkUntilNextTurn(response: Response): () => void {
  let corked = false;
  const uncork = () => {
    corked = false;
    response.uncork();
  };
  return () => {
    if (corked || response.writableEnded) return;
    corked = true;
    response.cork();
    setImmediate(uncork);
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<readonly unknown[]> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}
