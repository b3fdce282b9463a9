import { Readable } from 'node:stream';

/**
 * A byte stream over SSE frames, pulled one frame per read, so the source is read only as fast
 * as the socket drains (backpressure).
 *
 * Destroying it (the client left) closes the frames and their source first and emits 'close'
 * only after both have finished: whoever waits for 'close', such as the shutdown drain, knows
 * the stream has settled its tokens and recorded its usage. Readable.from cannot promise that,
 * and never even starts a generator it is destroyed before reading.
 */
export function framesReadable(
  frames: AsyncGenerator<string>,
  source: AsyncIterator<unknown>,
  beforePush?: () => void,
): Readable {
  return new Readable({
    highWaterMark: 1,
    read() {
      frames.next().then(
        (step) => {
          if (this.destroyed) return;
          beforePush?.();
          this.push(step.done ? null : step.value);
        },
        (error: Error) => this.destroy(error),
      );
    },
    destroy(error, callback) {
      Promise.allSettled([frames.return(undefined), source.return?.()]).then(() => callback(error));
    },
  });
}
