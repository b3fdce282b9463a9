import { performance } from 'node:perf_hooks';
import type { ClientConnection } from '../common/http/client-connection';
import { AttemptAbortSignal } from '../common/async/upstream-abort-signal';
import { UpstreamError } from '../common/errors/upstream.error';

/**
 * The deadlines of one upstream attempt, all counted from the moment the gateway accepted the
 * request: time spent queueing for a concurrency slot or on an earlier deployment counts too.
 * A deadline that passes aborts the attempt's signal with a `timeout` UpstreamError, which the
 * adapter turns into the failure of whatever it is waiting on (slot, headers, body).
 */
export class AttemptDeadline {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Aborted by the client's disconnect or by a passed deadline, with the first one's reason. */
  readonly signal = new AttemptAbortSignal();
  private readonly stopHearingClient: () => void = () => undefined;
  /**
   * The rejections of the races in progress, called by abort() itself: a listener on the signal
   * would cost an EventTarget listener added and removed per race (docs/performance.md, "Ninth
   * pass": about 3 us, where an entry in a Set costs next to nothing).
   */
  private readonly racing = new Set<(reason: unknown) => void>();

  /**
   * The client's leaving is forwarded by a listener on its connection (dispose() removes it);
   * this is the request's one abort signal (docs/performance.md, "Ninth pass", "Twelfth pass").
   */
  constructor(
    client: ClientConnection,
    private readonly acceptedAt: number,
  ) {
    if (client.lostReason) this.signal.abort(client.lostReason);
    else this.stopHearingClient = client.onLost((reason) => this.abort(reason));
  }

  /** Arms a deadline `ms` after acceptance; the returned function disarms it. */
  arm(ms: number, what: string): () => void {
    // Whole milliseconds, rounded up so it never fires early: Node keeps one timer list per
    // distinct duration (lib/internal/timers.js), and a fractional one, from performance.now(),
    // gave every attempt a list of its own, keyed by the number's string, created and dropped.
    const remaining = Math.max(0, Math.ceil(this.acceptedAt + ms - performance.now()));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.abort(
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
    return new Promise<T>((resolve, reject) => {
      this.racing.add(reject);
      promise.then(
        (value) => {
          this.racing.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.racing.delete(reject);
          reject(error);
        },
      );
    });
  }

  /** Aborts the signal (its listeners first: undici, a concurrency gate), then the races. */
  private abort(reason: unknown): void {
    if (this.signal.aborted) return;
    try {
      this.signal.abort(reason);
    } finally {
      for (const reject of this.racing) reject(this.signal.reason);
      this.racing.clear();
    }
  }

  /** Disarms every deadline; the attempt is over. */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.stopHearingClient();
  }
}
