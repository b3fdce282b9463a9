import { performance } from 'node:perf_hooks';
import { UpstreamError } from '../common/errors/upstream.error';

/**
 * The deadlines of one upstream attempt, all counted from the moment the gateway accepted the
 * request: time spent queueing for a concurrency slot or on an earlier deployment counts too.
 * A deadline that passes aborts the attempt's signal with a `timeout` UpstreamError, which the
 * adapter turns into the failure of whatever it is waiting on (slot, headers, body).
 */
export class AttemptDeadline {
  private readonly controller = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Aborted by the client's disconnect or by a passed deadline, with the first one's reason. */
  readonly signal: AbortSignal = this.controller.signal;
  private readonly forwardClientAbort: () => void;

  /**
   * The client's abort is forwarded by a listener, not combined with AbortSignal.any: that builds
   * weak references and a finalization registry per call, a measurable share of a request's CPU
   * (docs/performance.md). dispose() removes the listener.
   */
  constructor(
    private readonly clientSignal: AbortSignal,
    private readonly acceptedAt: number,
  ) {
    this.forwardClientAbort = () => this.controller.abort(clientSignal.reason);
    if (clientSignal.aborted) this.controller.abort(clientSignal.reason);
    else clientSignal.addEventListener('abort', this.forwardClientAbort, { once: true });
  }

  /** Arms a deadline `ms` after acceptance; the returned function disarms it. */
  arm(ms: number, what: string): () => void {
    // Whole milliseconds, rounded up so it never fires early: Node keeps one timer list per
    // distinct duration (lib/internal/timers.js), and a fractional one, from performance.now(),
    // gave every attempt a list of its own, keyed by the number's string, created and dropped.
    const remaining = Math.max(0, Math.ceil(this.acceptedAt + ms - performance.now()));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.controller.abort(
        new UpstreamError('timeout', `${what} not within ${ms} ms of the request's arrival`),
      );
    }, remaining);
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** Resolves with `promise`, or rejects with the abort reason once the signal is aborted. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      // `promise` is already running and will fail on the same signal: handled here, or its
      // rejection goes unhandled and Node ends the process (a client gone before the first call).
      promise.catch(() => undefined);
      return Promise.reject(this.signal.reason);
    }
    let onAbort!: () => void;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(this.signal.reason);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([promise, aborted]).finally(() =>
      this.signal.removeEventListener('abort', onAbort),
    );
  }

  /** Disarms every deadline; the attempt is over. */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.clientSignal.removeEventListener('abort', this.forwardClientAbort);
  }
}
