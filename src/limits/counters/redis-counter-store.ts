import type { Redis } from 'ioredis';
import type { ConsumeResult, CounterSpec, CounterStore, CounterWindow } from './counter-store';
import { ADJUST_SCRIPT, CONSUME_SCRIPT } from './redis-counter.scripts';

// defineCommand adds these at run time; ioredis sends EVALSHA and falls back to EVAL once.
interface CounterCommands {
  limitsConsume(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
  limitsAdjust(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number>;
}

/**
 * One consume() or adjust() call waiting for the end of the turn: its counters (prefixed) and the
 * script's arguments. An adjustment's arguments are its (delta, window end) pair per counter, so
 * adjustments merge by concatenation.
 */
interface QueuedCommand<T> {
  keys: string[];
  args: number[];
  resolve: (reply: T) => void;
  reject: (error: unknown) => void;
}

type QueuedCharge = QueuedCommand<number[]>;
type QueuedAdjustment = QueuedCommand<void>;

/** Most counters one adjust command carries, so that one script never runs long inside Redis. */
const MAX_COUNTERS_PER_ADJUST = 256;

/**
 * Counters shared by every gateway instance that uses the same Redis and key prefix. Keys look
 * like `<prefix>limits:{<virtual key id>}:<limit>`: the braces keep one key's counters in one
 * Redis Cluster slot, so a multi-counter script stays legal there.
 *
 * Commands leave at the end of the event loop's turn (setImmediate), all of that turn's in one
 * socket write: a write to Redis was the largest part of a command's CPU, and each used to cost
 * its own (docs/performance.md, deviations table). The settlements (adjust) go first, one script
 * per hash tag, then the charges (consume) in the order they were asked for; so every charge
 * counts every settlement made before it, as when each command was sent at once, and also those
 * made after it in the same turn, which it could not have counted before. A charge waits for the
 * rest of its turn, which at low load is nothing and under load is what it saves.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis & CounterCommands;
  private charges: QueuedCharge[] = [];
  private adjustments: QueuedAdjustment[] = [];
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
    const keys = specs.map((spec) => this.prefix + spec.key);
    const args = [amount, upTo];
    for (const spec of specs) args.push(spec.limit, spec.windowMs ?? 0, spec.endsAt ?? 0);
    const [refused, now, charged, ...states] = await new Promise<number[]>((resolve, reject) => {
      this.charges.push({ keys, args, resolve, reject });
      this.scheduleSend();
    });
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
      this.adjustments.push({
        keys: windows.map((window) => this.prefix + window.key),
        args: windows.flatMap((window) => [delta, window.endsAt]),
        resolve,
        reject,
      });
      this.scheduleSend();
    });
  }

  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(this.sendQueued);
  }

  private readonly sendQueued = (): void => {
    this.sendScheduled = false;
    const { adjustments, charges } = this;
    this.adjustments = [];
    this.charges = [];
    // ioredis writes each command to the socket as it is sent; corked, they leave in one write.
    // While the connection is not ready ioredis refuses every command at once (the offline queue
    // is off, counter-store.provider.ts), so nothing waits to be written after the uncork.
    const stream = this.redis.stream;
    stream?.cork();
    try {
      for (const batch of adjustmentBatches(adjustments)) this.sendAdjustments(batch);
      for (const charge of charges) {
        send(
          () => this.redis.limitsConsume(charge.keys.length, ...charge.keys, ...charge.args),
          charge.resolve,
          charge.reject,
        );
      }
    } finally {
      stream?.uncork();
    }
  };

  /**
   * One script for the batch. Redis does not roll a script back, so if it fails part-way the
   * counters before the failure keep their settlement while every caller sees the error (and the
   * failover store counts in memory for a second); the batch holds one key's or one team's
   * counters only.
   */
  private sendAdjustments(batch: QueuedAdjustment[]): void {
    const keys = batch.flatMap((adjustment) => adjustment.keys);
    const args = batch.flatMap((adjustment) => adjustment.args);
    send(
      () => this.redis.limitsAdjust(keys.length, ...keys, ...args),
      () => batch.forEach((adjustment) => adjustment.resolve()),
      (error) => batch.forEach((adjustment) => adjustment.reject(error)),
    );
  }
}

/**
 * Sends one command and hands its outcome on. A command that throws instead of rejecting is
 * rejected too, so that it strands neither its callers nor the rest of the turn's commands.
 */
function send<T>(
  command: () => Promise<T>,
  resolve: (reply: T) => void,
  reject: (error: unknown) => void,
): void {
  try {
    command().then(resolve, reject);
  } catch (error) {
    reject(error);
  }
}

/**
 * The adjustments grouped by Redis Cluster slot (hash tag), each group in the order queued and
 * cut into commands of at most MAX_COUNTERS_PER_ADJUST counters.
 */
function adjustmentBatches(adjustments: QueuedAdjustment[]): QueuedAdjustment[][] {
  const bySlot = new Map<string, QueuedAdjustment[]>();
  for (const adjustment of adjustments) {
    const slot = hashTag(adjustment.keys[0]);
    const group = bySlot.get(slot);
    if (group) group.push(adjustment);
    else bySlot.set(slot, [adjustment]);
  }
  const batches: QueuedAdjustment[][] = [];
  for (const group of bySlot.values()) {
    let batch: QueuedAdjustment[] = [];
    let counters = 0;
    for (const adjustment of group) {
      if (batch.length > 0 && counters + adjustment.keys.length > MAX_COUNTERS_PER_ADJUST) {
        batches.push(batch);
        batch = [];
        counters = 0;
      }
      batch.push(adjustment);
      counters += adjustment.keys.length;
    }
    batches.push(batch);
  }
  return batches;
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
