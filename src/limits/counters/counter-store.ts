/**
 * One limit to charge. A rolling window starts at its first charge and lasts `windowMs`; a
 * calendar period ends at `endsAt`, and its period id must be part of `key` so the next period
 * gets a fresh counter.
 */
export interface CounterSpec {
  key: string;
  limit: number;
  windowMs?: number;
  endsAt?: number;
  /**
   * A virtual key's or team's own limit: with LIMITS_ON_STORE_FAILURE=closed it is refused
   * (503) rather than counted in one instance's memory while the shared store is down. Absent
   * for the gateway's own limits (failed admin credentials), which always fall back to memory.
   */
  keyLimit?: boolean;
}

export interface CounterState {
  /** The count after this charge, or the unchanged count when the charge was refused. */
  used: number;
  /** When the window ends (epoch ms); also identifies the window for a later adjust(). */
  endsAt: number;
  /** Time left in the window, on the store's own clock. */
  resetMs: number;
}

export type CounterBackend = 'redis' | 'memory';

export interface ConsumeResult {
  allowed: boolean;
  /** What was charged to every counter: 0 when refused, otherwise between amount and upTo. */
  charged: number;
  /** Index of the first counter that had no room; -1 when allowed. */
  refused: number;
  /** One state per spec, in order. */
  counters: CounterState[];
  /** Where the charge was counted, so its settlement goes to the same place. */
  backend: CounterBackend;
}

export interface CounterWindow {
  key: string;
  endsAt: number;
}

/**
 * Fixed-window counters for request and token limits. Both operations are atomic per call, so
 * several gateway instances sharing one store together allow exactly the limit.
 */
export interface CounterStore {
  /**
   * Charges every counter, or none of them if `amount` would take any over its limit. With
   * `upTo` above `amount`, it charges as much more as every counter has room for, up to `upTo`.
   */
  consume(counters: CounterSpec[], amount: number, upTo?: number): Promise<ConsumeResult>;
  /**
   * Adds `delta` (negative to give back) to each window that is still the one identified by its
   * `endsAt`, never going below zero and never refusing: it settles what was already spent.
   */
  adjust(windows: CounterWindow[], delta: number, backend: CounterBackend): Promise<void>;
  /** False while a shared store is down (the /metrics gauge); memory counters are always up. */
  readonly up?: boolean;
}

// Interface and DI token share a name, as ThrottlerStorage does.
export const CounterStore = Symbol('CounterStore');
