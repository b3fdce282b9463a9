/**
 * What the upstream call reads of an abort signal: whether and why it was aborted, and one-shot
 * `abort` listeners. A standard AbortSignal has all of it (the tests pass AbortController's), and
 * so has undici's request option, which takes any object with `addEventListener` and reads
 * `aborted` and `reason` (node_modules/undici/lib/api/api-request.js, `util.addAbortListener`).
 */
export interface UpstreamAbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The one abort signal each upstream attempt needs (AttemptDeadline), without Node's
 * AbortController: on Node 20 creating one costs about 4 us (`createAbortSignal` builds an
 * EventTarget and gives it a hidden class of its own) and every listener undici or a concurrency
 * gate adds and removes goes through EventTarget's bookkeeping (docs/performance.md, "Twelfth
 * pass"). An attempt has one to three listeners and aborts at most once, so an array does.
 *
 * Listeners are called once, in the order added, on the first abort(); one added after the abort
 * is never called (as with an AbortSignal: the caller checks `aborted` first). A listener that
 * throws does not stop the others; abort() rethrows the first exception once all have run.
 */
export class AttemptAbortSignal implements UpstreamAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  /** `once` or not, a listener is called at most once: the signal aborts once. */
  addEventListener(type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (type !== 'abort' || this.aborted) return;
    this.listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort') return;
    const index = this.listeners.indexOf(listener);
    if (index >= 0) this.listeners.splice(index, 1);
  }

  /** Aborts with `reason` and calls the listeners; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    // As EventTarget does, one listener's exception does not keep the others from running.
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
