import { Readable } from 'node:stream';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { DONE_FRAME, dataFrame, errorFrame, HEARTBEAT_FRAME } from './sse-frames';

export interface SseReadableOptions {
  /** A comment frame after this long without a chunk while the client waits; 0: none. */
  heartbeatMs: number;
  /** Hears a failure after the first chunk (it is sent as an error frame, not thrown). */
  onError?: (error: unknown) => void;
  /** Runs before every push (the interceptor corks the response there). */
  beforePush?: () => void;
}

/**
 * A stream of chunk batches as the bytes of an SSE response (frames: sse-frames.ts), read straight
 * from the source: one `source.next()` per read, so the source is pulled only as fast as the
 * socket drains (backpressure), and no async generator or Promise per event in between. Each
 * batch (the chunks of one upstream read) becomes its events' frames in one push, so one write
 * to the response; an empty batch is skipped. An error after the first chunk becomes one error
 * frame and the stream ends without [DONE], so a truncated answer can never look complete; a
 * client disconnect ends it silently.
 *
 * Heartbeats come from one timer per stream, restarted when a read starts waiting: if it fires
 * while the read still waits on the source, a heartbeat frame answers that read.
 *
 * Destroying it (the client left) closes the source (return()) and emits 'close' only after that
 * has finished: whoever waits for 'close', such as the shutdown drain, knows the stream has
 * settled its tokens and recorded its usage. Readable.from cannot promise that, and never even
 * starts a generator it is destroyed before reading.
 */
export function sseReadable(
  source: AsyncIterator<readonly unknown[]>,
  options: SseReadableOptions,
): Readable {
  return new SseReadable(source, options);
}

class SseReadable extends Readable {
  /** A source.next() is in flight. */
  private pulling = false;
  /** A read() asked for data and nothing has been pushed since. */
  private waiting = false;
  /** The source is done or failed: nothing more to pull. */
  private finished = false;
  private readonly heartbeat?: NodeJS.Timeout;
  // Bound once, not per event.
  private readonly onStep = (step: IteratorResult<readonly unknown[]>) => this.step(step);
  private readonly onFailure = (error: unknown) => this.fail(error);

  constructor(
    private readonly source: AsyncIterator<readonly unknown[]>,
    private readonly options: SseReadableOptions,
  ) {
    super({ highWaterMark: 1 });
    if (options.heartbeatMs > 0) {
      this.heartbeat = setTimeout(() => this.beat(), options.heartbeatMs);
    }
  }

  override _read(): void {
    if (this.waiting || this.finished) return;
    this.waiting = true;
    this.heartbeat?.refresh();
    if (this.pulling) return; // a heartbeat answered the last read; its batch is still coming
    this.pull();
  }

  private pull(): void {
    this.pulling = true;
    try {
      this.source.next().then(this.onStep, this.onFailure);
    } catch (error) {
      this.fail(error);
    }
  }

  private step(step: IteratorResult<readonly unknown[]>): void {
    this.pulling = false;
    if (this.destroyed) return;
    if (step.done) {
      this.endWith(DONE_FRAME);
      return;
    }
    const batch = step.value;
    if (batch.length === 0) {
      if (this.waiting) this.pull();
      return;
    }
    let frames = dataFrame(batch[0]);
    for (let i = 1; i < batch.length; i++) frames += dataFrame(batch[i]);
    this.waiting = false;
    this.options.beforePush?.();
    this.push(frames);
  }

  private fail(error: unknown): void {
    this.pulling = false;
    if (this.destroyed) return;
    if (error instanceof ClientDisconnectedError) return this.endWith();
    this.options.onError?.(error);
    this.endWith(errorFrame(error));
  }

  private endWith(frame?: string): void {
    this.finished = true;
    this.waiting = false;
    this.stopHeartbeat();
    this.options.beforePush?.();
    if (frame) this.push(frame);
    this.push(null);
  }

  private beat(): void {
    if (!this.waiting || !this.pulling || this.destroyed) return;
    this.waiting = false;
    this.options.beforePush?.();
    this.push(HEARTBEAT_FRAME);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearTimeout(this.heartbeat);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.stopHeartbeat();
    // The client left early: the source closes its upstream and records what was streamed.
    // return() on a finished generator does nothing; on a running one it waits for its finally.
    const closing = this.finished ? undefined : this.source.return?.();
    if (!closing) return callback(error);
    closing.then(
      () => callback(error),
      () => callback(error),
    );
  }
}
