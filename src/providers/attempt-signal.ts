/**
 * What an upstream call reads of its attempt's abort signal: whether and why it was aborted, and
 * `abort` listeners. A standard AbortSignal has all of it (tests and the count_tokens route pass
 * AbortController's); the pipeline passes an AttemptSignal.
 */
export interface UpstreamSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The abort signal of one upstream attempt, read only by the gateway's own code. Not an
 * AbortSignal because on Node 20 each of those is an EventTarget given a prototype of its own:
 * about 4 us to create and 6 us with one listener added and removed, 12 % of a JSON request's CPU
 * in paired rounds (docs/performance.md). A library that takes a signal (undici's `request()`) is
 * given a standard one by `standardSignal()`.
 *
 * Listeners are called once, in the order added, on the first abort(); one added after the abort
 * is never called (as with an AbortSignal, the caller checks `aborted` first). A listener that
 * throws does not stop the others; abort() rethrows the first exception once all have run.
 */
export class AttemptSignal implements UpstreamSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  /** `once` or not, a listener is called at most once: the signal aborts once. */
  addEventListener(type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const index = type === 'abort' ? this.listeners.indexOf(listener) : -1;
    if (index >= 0) this.listeners.splice(index, 1);
  }

  /** Aborts with `reason` and calls the listeners; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    let failure: { error: unknown } | undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}

/** A standard AbortSignal that aborts with `signal` and its reason, for APIs that take one. */
export function standardSignal(signal: UpstreamSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason));
  return controller.signal;
}
