import { UpstreamError } from '../common/errors/upstream.error';
import type { UpstreamSignal } from './attempt-signal';

/** Releases a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * At most `max` requests in flight to one deployment; the next ones wait in line, in order, for at
 * most `maxWaitMs`, and are refused with an `overloaded` error after that. The wait is visible
 * and bounded, unlike a connection pool's queue, which holds requests for ever and silently.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(
    readonly name: string,
    readonly max: number,
    readonly maxWaitMs: number,
  ) {}

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once a slot is free; rejects on timeout or abort. */
  acquire(signal: UpstreamSignal): Promise<ReleaseSlot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.maxWaitMs <= 0) return Promise.reject(this.overloaded());
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const entry = {
        grant: () => {
          cleanup();
          this.active++;
          resolve(this.releaser());
        },
      };
      const leave = (error: unknown) => {
        cleanup();
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(error);
      };
      const onAbort = () => leave(signal.reason);
      const timer = setTimeout(() => leave(this.overloaded()), this.maxWaitMs);
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.grant();
    };
  }

  private overloaded(): UpstreamError {
    return new UpstreamError(
      'overloaded',
      `deployment ${this.name}: ${this.max} requests in flight, no slot free within ${this.maxWaitMs} ms`,
      { retryAfterSeconds: Math.max(1, Math.ceil(this.maxWaitMs / 1000)) },
    );
  }
}
