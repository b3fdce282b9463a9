import type { ConsumeResult, CounterSpec, CounterStore, CounterWindow } from './counter-store';

interface Window {
  used: number;
  endsAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters in this process's memory: exact for one instance, per instance when there are
 * several, and gone on restart. The same window rules as the Redis store, so the gateway behaves
 * the same with either.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, Window>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  async consume(specs: CounterSpec[], amount: number, upTo = amount): Promise<ConsumeResult> {
    const now = this.now();
    this.sweep(now);
    const current = specs.map(
      (spec) =>
        this.live(spec.key, now) ?? { used: 0, endsAt: spec.endsAt ?? now + (spec.windowMs ?? 0) },
    );
    const refused = specs.findIndex((spec, index) => current[index].used + amount > spec.limit);
    const room = Math.min(...specs.map((spec, index) => spec.limit - current[index].used));
    const charged = refused < 0 ? Math.max(amount, Math.min(upTo, room)) : 0;
    if (refused < 0) {
      specs.forEach((spec, index) => {
        current[index] = { used: current[index].used + charged, endsAt: current[index].endsAt };
        this.windows.set(spec.key, current[index]);
      });
    }
    return {
      allowed: refused < 0,
      charged,
      refused,
      counters: current.map((window) => ({
        used: window.used,
        endsAt: window.endsAt,
        resetMs: window.endsAt - now,
      })),
      backend: 'memory',
    };
  }

  async adjust(windows: CounterWindow[], delta: number): Promise<void> {
    const now = this.now();
    for (const { key, endsAt } of windows) {
      const window = this.live(key, now);
      if (window?.endsAt === endsAt) window.used = Math.max(0, window.used + delta);
    }
  }

  private live(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : undefined;
  }

  // Ended windows are dropped once a minute so idle keys do not accumulate forever.
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }
}
