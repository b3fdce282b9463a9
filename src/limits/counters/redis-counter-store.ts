import type { Redis } from 'ioredis';
import type { ConsumeResult, CounterSpec, CounterStore, CounterWindow } from './counter-store';
import { ADJUST_SCRIPT, CONSUME_SCRIPT } from './redis-counter.scripts';

// defineCommand adds these at run time; ioredis sends EVALSHA and falls back to EVAL once.
interface CounterCommands {
  limitsConsume(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  limitsAdjust(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number>;
}

/** One adjust() call waiting to be sent: its counters (prefixed), their windows, its delta. */
interface QueuedAdjustment {
  keys: string[];
  endsAts: number[];
  delta: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Most counters one adjust command carries, so that one script never runs long inside Redis. */
const MAX_COUNTERS_PER_ADJUST = 256;

/**
 * Counters shared by every gateway instance that uses the same Redis and key prefix. Keys look
 * like `<prefix>limits:{<virtual key id>}:<limit>`: the braces keep one key's counters in one
 * Redis Cluster slot, so a multi-counter script stays legal there.
 *
 * Settlements (adjust) are not sent at once but at the end of the event loop's turn, all those
 * queued in it together: under load one command and one socket write carry the settlements of
 * every answer that finished in that turn, where each used to cost its own write, and a write to
 * Redis is the largest part of a command's CPU (docs/performance.md, "Fourteenth pass"). A charge
 * (consume) sends whatever is queued first, on the same connection, so every charge still counts
 * the settlements made before it, as when each was sent at once.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis & CounterCommands;
  private queued: QueuedAdjustment[] = [];
  private sendScheduled = false;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('limitsConsume', { lua: CONSUME_SCRIPT });
    redis.defineCommand('limitsAdjust', { lua: ADJUST_SCRIPT });
    this.redis = redis as Redis & CounterCommands;
  }

  async consume(specs: CounterSpec[], amount: number, upTo = amount): Promise<ConsumeResult> {
    this.sendQueuedAdjustments();
    const keys = specs.map((spec) => this.prefix + spec.key);
    const args = specs.flatMap((spec) => [spec.limit, spec.windowMs ?? 0, spec.endsAt ?? 0]);
    const [refused, now, charged, ...states] = await this.redis.limitsConsume(
      keys.length,
      ...keys,
      amount,
      upTo,
      ...args,
    );
    return {
      allowed: refused < 0,
      charged,
      refused,
      counters: specs.map((_spec, index) => {
        const used = states[index * 2];
        const endsAt = states[index * 2 + 1];
        return { used, endsAt, resetMs: endsAt - now };
      }),
      backend: 'redis',
    };
  }

  /** Resolves once Redis has applied the adjustment; rejects if its command fails. */
  adjust(windows: CounterWindow[], delta: number): Promise<void> {
    if (windows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queued.push({
        keys: windows.map((window) => this.prefix + window.key),
        endsAts: windows.map((window) => window.endsAt),
        delta,
        resolve,
        reject,
      });
      if (!this.sendScheduled) {
        this.sendScheduled = true;
        setImmediate(this.sendQueuedAdjustments);
      }
    });
  }

  /**
   * One command per Redis Cluster slot (hash tag) among the queued adjustments, in the order they
   * were queued, each with at most MAX_COUNTERS_PER_ADJUST counters.
   */
  private readonly sendQueuedAdjustments = (): void => {
    this.sendScheduled = false;
    if (this.queued.length === 0) return;
    const queued = this.queued;
    this.queued = [];
    const bySlot = new Map<string, QueuedAdjustment[]>();
    for (const adjustment of queued) {
      const slot = hashTag(adjustment.keys[0]);
      const group = bySlot.get(slot);
      if (group) group.push(adjustment);
      else bySlot.set(slot, [adjustment]);
    }
    for (const group of bySlot.values()) {
      let batch: QueuedAdjustment[] = [];
      let counters = 0;
      for (const adjustment of group) {
        if (counters + adjustment.keys.length > MAX_COUNTERS_PER_ADJUST && batch.length > 0) {
          this.sendAdjustments(batch);
          batch = [];
          counters = 0;
        }
        batch.push(adjustment);
        counters += adjustment.keys.length;
      }
      this.sendAdjustments(batch);
    }
  };

  private sendAdjustments(batch: QueuedAdjustment[]): void {
    const keys: string[] = [];
    const args: number[] = [];
    for (const adjustment of batch) {
      for (let i = 0; i < adjustment.keys.length; i++) {
        keys.push(adjustment.keys[i]);
        args.push(adjustment.delta, adjustment.endsAts[i]);
      }
    }
    this.redis.limitsAdjust(keys.length, ...keys, ...args).then(
      () => batch.forEach((adjustment) => adjustment.resolve()),
      (error: unknown) => batch.forEach((adjustment) => adjustment.reject(error)),
    );
  }
}

/**
 * The part of a key that Redis Cluster hashes to pick its slot: the text between the first `{`
 * and the next `}` when that is not empty, else the whole key (the Redis Cluster specification's
 * "hash tags"). Keys with the same tag may share one script.
 */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
