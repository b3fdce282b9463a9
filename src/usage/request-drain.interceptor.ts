import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { finalize, Observable, tap } from 'rxjs';
import { SseStream } from '../common/sse/sse-stream';
import { RequestDrain } from './request-drain.service';

/**
 * Extends a request's unit of work in RequestDrain past the HTTP response where the handler
 * outlives it: a handler still settling after its client left (it records usage when its
 * upstream call is aborted), and an event stream, whose source only closes once its generator
 * has run its `finally` (where a stream records its usage; SseStream.closed).
 */
@Injectable()
export class RequestDrainInterceptor implements NestInterceptor {
  constructor(private readonly drain: RequestDrain) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const end = this.drain.begin();
    let streaming = false;
    return next.handle().pipe(
      tap((result) => {
        if (!(result instanceof SseStream)) return;
        streaming = true;
        void result.closed.then(end);
      }),
      finalize(() => {
        if (!streaming) end();
      }),
    );
  }
}
