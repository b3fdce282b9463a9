import { performance } from 'node:perf_hooks';
import { UpstreamError } from '../common/errors/upstream.error';
import type { ClientConnection } from '../common/http/client-connection';

/**
 * The deadlines and abort signals of one request's upstream attempts. Each attempt gets an
 * AbortController of its own, aborted when the client leaves, when the attempt's deadline
 * passes, or (streams) when the stream reaches its longest duration; the adapter turns the abort
 * into the failure of whatever it waits on (slot, headers, body), and undici closes the
 * connection. Deadlines are plain timers held here, not AbortSignal.timeout(): on Node 20 a
 * timeout signal only referenced from a combined one can be collected before it fires.
 * Deadlines count from the request's arrival.
 */
export class RequestDeadlines {
  private controller: AbortController | undefined;
  private attemptTimer: NodeJS.Timeout | undefined;
  private streamTimer: NodeJS.Timeout | undefined;
  /** The rejections of the races in progress: abort() calls them itself. */
  private readonly racing = new Set<(reason: unknown) => void>();
  private readonly stopHearingClient: () => void;

  constructor(
    private readonly client: ClientConnection,
    private readonly acceptedAt: number,
  ) {
    this.stopHearingClient = client.onLost((reason) => this.abort(reason));
  }

  /** The signal of a new attempt, whose own deadline passes `timeoutMs` after arrival. */
  beginAttempt(timeoutMs: number, what: string): AbortSignal {
    this.endAttempt();
    const controller = new AbortController();
    this.controller = controller;
    if (this.client.lostReason) controller.abort(this.client.lostReason);
    else
      this.attemptTimer = this.timer(timeoutMs, () =>
        this.abort(
          new UpstreamError(
            'timeout',
            `${what} not within ${timeoutMs} ms of the request's arrival`,
          ),
        ),
      );
    return controller.signal;
  }

  /** The attempt's own deadline is over (its answer or first part is in, or it failed). */
  endAttempt(): void {
    if (this.attemptTimer) clearTimeout(this.attemptTimer);
    this.attemptTimer = undefined;
  }

  /** A stream is cut `ms` after the request's arrival, whichever attempt is running then. */
  limitStream(ms: number): void {
    this.streamTimer = this.timer(ms, () =>
      this.abort(
        new UpstreamError(
          'timeout',
          `end of stream (STREAM_MAX_DURATION_MS) not within ${ms} ms of the request's arrival`,
        ),
      ),
    );
  }

  /** Resolves with `promise`, or rejects with the abort reason once the attempt is aborted. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.controller?.signal;
    if (signal?.aborted) {
      // `promise` is already running and will fail on the same signal: handled here, or its
      // rejection goes unhandled and Node ends the process.
      promise.catch(() => undefined);
      return Promise.reject(signal.reason);
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

  /** Waits `ms` between two attempts, or rejects as soon as the client leaves. */
  pause(ms: number): Promise<void> {
    if (this.client.lostReason) return Promise.reject(this.client.lostReason);
    return new Promise((resolve, reject) => {
      const stopHearing = this.client.onLost((reason) => {
        clearTimeout(timer);
        reject(reason);
      });
      const timer = setTimeout(() => {
        stopHearing();
        resolve();
      }, ms);
    });
  }

  /** Disarms every deadline and stops listening to the client: the request's upstream work is over. */
  dispose(): void {
    this.endAttempt();
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
    this.stopHearingClient();
  }

  /**
   * Whole milliseconds after arrival, rounded up so it never fires early: Node keeps one timer
   * list per distinct duration, and a fractional one would give every request a list of its own.
   */
  private timer(msAfterArrival: number, onExpiry: () => void): NodeJS.Timeout {
    const remaining = Math.ceil(this.acceptedAt + msAfterArrival - performance.now());
    return setTimeout(onExpiry, Math.max(0, remaining));
  }

  /** Aborts the current attempt (its signal's listeners first: undici, a gate), then the races. */
  private abort(reason: unknown): void {
    const controller = this.controller;
    if (!controller || controller.signal.aborted) return;
    try {
      controller.abort(reason);
    } finally {
      for (const reject of this.racing) reject(reason);
      this.racing.clear();
    }
  }
}
