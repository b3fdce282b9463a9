import type { Redis } from 'ioredis';
import type { ConsumeResult, CounterSpec, CounterStore, CounterWindow } from './counter-store';
import { ADJUST_SCRIPT, CONSUME_SCRIPT } from './redis-counter.scripts';

// defineCommand adds these at run time; ioredis sends EVALSHA and falls back to EVAL once.
interface CounterCommands {
  limitsConsume(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  limitsAdjust(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number>;
}

/**
 * Counters shared by every gateway instance that uses the same Redis and key prefix. Keys look
 * like `<prefix>limits:{<virtual key id>}:<limit>`: the braces keep one key's counters in one
 * Redis Cluster slot, so a multi-counter script stays legal there.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis & CounterCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('limitsConsume', { lua: CONSUME_SCRIPT });
    redis.defineCommand('limitsAdjust', { lua: ADJUST_SCRIPT });
    this.redis = redis as Redis & CounterCommands;
  }

  async consume(specs: CounterSpec[], amount: number, upTo = amount): Promise<ConsumeResult> {
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

  async adjust(windows: CounterWindow[], delta: number): Promise<void> {
    const keys = windows.map((window) => this.prefix + window.key);
    await this.redis.limitsAdjust(
      keys.length,
      ...keys,
      delta,
      ...windows.map((window) => window.endsAt),
    );
  }
}
