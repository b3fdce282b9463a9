import { performance } from 'node:perf_hooks';
import { UpstreamError } from '../common/errors/upstream.error';
import type { ClientConnection } from '../common/http/client-connection';
import { AttemptSignal, type UpstreamSignal } from '../providers/attempt-signal';

export interface DeadlineSettings {
  /** `request_timeout_ms`: every attempt and the waits between them, from the request's arrival. */
  requestTimeoutMs: number;
  /** STREAM_MAX_DURATION_MS, from the request's arrival, for a stream. */
  streamMaxMs?: number;
}

/**
 * The deadlines and abort signals of one request's upstream attempts. Each attempt gets an
 * AttemptSignal of its own, aborted when the client leaves, when the attempt's own deadline
 * passes (`timeout_ms`, `first_token_timeout_ms`: from the attempt's start, so that a hung
 * deployment leaves the next one its whole time), when the request's deadline passes
 * (`request_timeout_ms`, from arrival, until the answer is in), or when a stream reaches its
 * longest duration. The adapter turns the abort into the failure of whatever it waits on (slot,
 * headers, body), and undici closes that attempt's connection.
 *
 * Deadlines are plain timers held here, not AbortSignal.timeout(): on Node 20 a timeout signal
 * only referenced from a combined one can be collected before it fires.
 */
export class RequestDeadlines {
  /** Why the request's deadline passed, once it has: no attempt or wait may follow. */
  expired: UpstreamError | undefined;
  private attempt: AttemptSignal | undefined;
  private attemptTimer: NodeJS.Timeout | undefined;
  private requestTimer: NodeJS.Timeout | undefined;
  private streamTimer: NodeJS.Timeout | undefined;
  /** The rejections of the races in progress: abort() calls them itself. */
  private readonly racing = new Set<(reason: unknown) => void>();
  /** Ends the backoff in progress, if any, with the abort's reason. */
  private interruptPause: ((reason: unknown) => void) | undefined;
  private readonly stopHearingClient: () => void;

  constructor(
    private readonly client: ClientConnection,
    private readonly acceptedAt: number,
    { requestTimeoutMs, streamMaxMs }: DeadlineSettings,
  ) {
    this.stopHearingClient = client.onLost((reason) => this.abort(reason));
    this.requestTimer = this.afterArrival(requestTimeoutMs, () => {
      this.expired = new UpstreamError(
        'timeout',
        `no answer within request_timeout_ms (${requestTimeoutMs} ms) of the request's arrival`,
      );
      this.abort(this.expired);
    });
    if (streamMaxMs !== undefined)
      this.streamTimer = this.afterArrival(streamMaxMs, () =>
        this.abort(
          new UpstreamError(
            'timeout',
            `end of stream (STREAM_MAX_DURATION_MS) not within ${streamMaxMs} ms of the request's arrival`,
          ),
        ),
      );
  }

  /** The signal of a new attempt, whose own deadline passes `timeoutMs` from now. */
  beginAttempt(timeoutMs: number, what: string): UpstreamSignal {
    this.endAttempt();
    const attempt = new AttemptSignal();
    this.attempt = attempt;
    const stopped = this.client.lostReason ?? this.expired;
    if (stopped) attempt.abort(stopped);
    else
      this.attemptTimer = setTimeout(
        () =>
          this.abort(
            new UpstreamError(
              'timeout',
              `${what} not within ${timeoutMs} ms of the attempt's start`,
            ),
          ),
        timeoutMs,
      );
    return attempt;
  }

  /** The attempt's own deadline is over (its answer or first part is in, or it failed). */
  endAttempt(): void {
    if (this.attemptTimer) clearTimeout(this.attemptTimer);
    this.attemptTimer = undefined;
  }

  /**
   * The answer, or a stream's first part, is in: the request's deadline is met. What follows of
   * a stream is bounded by the silence limit, the client and STREAM_MAX_DURATION_MS.
   */
  answered(): void {
    if (this.requestTimer) clearTimeout(this.requestTimer);
    this.requestTimer = undefined;
  }

  /** Resolves with `promise`, or rejects with the abort reason once the attempt is aborted. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.attempt;
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

  /** Waits `ms` between two attempts, or rejects once the client leaves or the deadline passes. */
  pause(ms: number): Promise<void> {
    const stopped = this.client.lostReason ?? this.expired;
    if (stopped) return Promise.reject(stopped);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.interruptPause = undefined;
        resolve();
      }, ms);
      this.interruptPause = (reason) => {
        clearTimeout(timer);
        this.interruptPause = undefined;
        reject(reason);
      };
    });
  }

  /** Disarms every deadline and stops listening to the client: the request's upstream work is over. */
  dispose(): void {
    this.endAttempt();
    this.answered();
    if (this.streamTimer) clearTimeout(this.streamTimer);
    this.streamTimer = undefined;
    this.interruptPause = undefined;
    this.stopHearingClient();
  }

  /**
   * Whole milliseconds after arrival, rounded up so it never fires early: Node keeps one timer
   * list per distinct duration, and a fractional one would give every request a list of its own.
   */
  private afterArrival(ms: number, onExpiry: () => void): NodeJS.Timeout {
    const remaining = Math.ceil(this.acceptedAt + ms - performance.now());
    return setTimeout(onExpiry, Math.max(0, remaining));
  }

  /** Ends a backoff, aborts the current attempt (undici and gates first), then its races. */
  private abort(reason: unknown): void {
    this.interruptPause?.(reason);
    const attempt = this.attempt;
    if (!attempt || attempt.aborted) return;
    try {
      attempt.abort(reason);
    } finally {
      for (const reject of this.racing) reject(reason);
      this.racing.clear();
    }
  }
}
