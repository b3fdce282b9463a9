import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { Readable } from 'node:stream';
import { finalize, Observable, tap } from 'rxjs';
import { RequestDrain } from './request-drain.service';

/**
 * Extends a request's unit of work in RequestDrain past the HTTP response where the handler
 * outlives it: a handler still settling after its client left (it records usage when its
 * upstream call is aborted), and a streamed body, whose source only closes once its generator
 * has run its `finally` (where a stream records its usage).
 */
@Injectable()
export class RequestDrainInterceptor implements NestInterceptor {
  constructor(private readonly drain: RequestDrain) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const end = this.drain.begin();
    let streaming = false;
    return next.handle().pipe(
      tap((result) => {
        const stream =
          result instanceof StreamableFile
            ? result.getStream()
            : result instanceof Readable
              ? result
              : null;
        if (!stream) return;
        streaming = true;
        if (stream.closed) end();
        else stream.once('close', end);
      }),
      finalize(() => {
        if (!streaming) end();
      }),
    );
  }
}
