import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { EventEmitter } from 'node:events';
import { GatewayException } from '../../common/errors/gateway.exception';
import type { ConsumeResult, CounterStore } from './counter-store';
import { FailoverCounterStore } from './failover-counter-store';
import { MemoryCounterStore } from './memory-counter-store';

class FakeRedis extends EventEmitter {
  status = 'ready';
  disconnect(): void {}
}

const spec = { key: 'k', limit: 10, windowMs: 60_000 };
const sharedResult: ConsumeResult = {
  allowed: true,
  charged: 1,
  refused: -1,
  counters: [{ used: 1, endsAt: 60_000, resetMs: 60_000 }],
  backend: 'redis',
};

describe('FailoverCounterStore', () => {
  let now: number;
  let redis: FakeRedis;
  let shared: jest.Mocked<CounterStore>;
  let local: MemoryCounterStore;
  let store: FailoverCounterStore;
  let errors: jest.SpyInstance;
  let infos: jest.SpyInstance;

  beforeEach(() => {
    now = 0;
    redis = new FakeRedis();
    shared = {
      consume: jest.fn().mockResolvedValue(sharedResult),
      adjust: jest.fn().mockResolvedValue(undefined),
    };
    local = new MemoryCounterStore(() => now);
    store = new FailoverCounterStore(redis as unknown as Redis, shared, local, () => now);
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    infos = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(() => {
    store.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('counts in Redis while it is connected', async () => {
    expect(await store.consume([spec], 1)).toBe(sharedResult);
    expect(errors).not.toHaveBeenCalled();
  });

  it('counts in memory, without trying Redis, while the connection is down', async () => {
    redis.status = 'reconnecting';
    expect(await store.consume([spec], 1)).toMatchObject({
      backend: 'memory',
      counters: [{ used: 1 }],
    });
    expect(await store.consume([spec], 1)).toMatchObject({
      backend: 'memory',
      counters: [{ used: 2 }],
    });
    expect(shared.consume).not.toHaveBeenCalled();
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0][0]).toContain(
      'Redis limit storage unavailable (connection reconnecting)',
    );
  });

  it('leaves Redis alone for a second after a failed command, then tries again and logs the recovery', async () => {
    shared.consume.mockRejectedValueOnce(new Error('Command timed out'));
    expect((await store.consume([spec], 1)).backend).toBe('memory');
    now += 999;
    expect((await store.consume([spec], 1)).backend).toBe('memory');
    expect(shared.consume).toHaveBeenCalledTimes(1);

    now += 1;
    expect((await store.consume([spec], 1)).backend).toBe('redis');
    expect(infos.mock.calls.map(([message]) => message)).toEqual([
      'Redis limit storage is back after 1.0 s; 2 limit checks were counted per instance meanwhile. Limits are shared again.',
    ]);
  });

  it('is not ended by a slow command sent before the outage began, so a flapping start logs one line', async () => {
    let straggler!: (result: ConsumeResult) => void;
    shared.consume.mockReturnValueOnce(new Promise((resolve) => (straggler = resolve)));
    const slow = store.consume([spec], 1);
    now += 10;
    shared.consume.mockRejectedValueOnce(new Error('Command timed out'));
    expect((await store.consume([spec], 1)).backend).toBe('memory');
    straggler(sharedResult);
    expect((await slow).backend).toBe('redis');
    redis.status = 'reconnecting';
    expect((await store.consume([spec], 1)).backend).toBe('memory');
    expect(errors).toHaveBeenCalledTimes(1);
    expect(infos).not.toHaveBeenCalled();
  });

  it('logs an outage once, then one line per interval while it lasts, however often it fails', async () => {
    jest.useFakeTimers();
    try {
      redis.status = 'reconnecting';
      for (let i = 0; i < 50; i++) redis.emit('error', new Error('connect ECONNREFUSED'));
      await store.consume([spec], 1);
      expect(errors).toHaveBeenCalledTimes(1);
      now += 30_000;
      jest.advanceTimersByTime(30_000);
      expect(errors).toHaveBeenCalledTimes(2);
      expect(errors.mock.calls[1][0]).toBe(
        'Redis limit storage still unavailable after 30.0 s (connection reconnecting); 1 limit checks counted per instance so far',
      );
      expect(store.up).toBe(false);
      jest.advanceTimersByTime(30_000);
      expect(errors).toHaveBeenCalledTimes(3);
    } finally {
      store.onApplicationShutdown();
      jest.useRealTimers();
    }
  });

  it('notices a Redis that came back without any request, by a PING at the next interval', async () => {
    jest.useFakeTimers();
    const ping = jest.fn().mockResolvedValue('PONG');
    Object.assign(redis, { ping, disconnect: jest.fn() });
    try {
      redis.status = 'reconnecting';
      redis.emit('error', new Error('connect ECONNREFUSED'));
      expect(store.up).toBe(false);
      redis.status = 'ready';
      now += 2_000;
      jest.advanceTimersByTime(30_000);
      await Promise.resolve();
      await Promise.resolve();
      expect(ping).toHaveBeenCalledTimes(1);
      expect(store.up).toBe(true);
      expect(infos.mock.calls.map(([message]) => message)).toEqual([
        'Redis limit storage is back after 2.0 s; 0 limit checks were counted per instance meanwhile. Limits are shared again.',
      ]);
    } finally {
      store.onApplicationShutdown();
      jest.useRealTimers();
    }
  });

  it("with LIMITS_ON_STORE_FAILURE=closed, refuses a key's limits with 503 and Retry-After, and counts the gateway's own in memory", async () => {
    const closed = new FailoverCounterStore(redis as unknown as Redis, shared, local, () => now, {
      policy: 'closed',
    });
    try {
      shared.consume.mockRejectedValueOnce(new Error('Command timed out'));
      const error = await closed
        .consume([{ ...spec, keyLimit: true }], 1)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GatewayException);
      expect(error).toMatchObject({
        code: 'limits_unavailable',
        status: 503,
        headers: { 'retry-after': '1' },
      });
      expect((await closed.consume([spec], 1)).backend).toBe('memory');
      expect(errors.mock.calls[0][0]).toContain(
        'requests of keys with limits or budgets are refused (503) until it is back',
      );
      now += 1_000;
      expect((await closed.consume([{ ...spec, keyLimit: true }], 1)).backend).toBe('redis');
      expect(infos.mock.calls[0][0]).toContain(
        '1 limit checks were refused and 1 counted per instance meanwhile',
      );
    } finally {
      closed.onApplicationShutdown();
    }
  });

  it('settles a reservation where it was counted, and drops a Redis settlement while Redis is down', async () => {
    const window = { key: 'k', endsAt: 60_000 };
    const reserved = await local.consume([spec], 5);
    await store.adjust([{ key: 'k', endsAt: reserved.counters[0].endsAt }], -3, 'memory');
    expect((await local.consume([spec], 0)).counters[0].used).toBe(2);

    await store.adjust([window], -3, 'redis');
    expect(shared.adjust).toHaveBeenCalledWith([window], -3, 'redis');

    redis.status = 'reconnecting';
    await store.adjust([window], -3, 'redis');
    expect(shared.adjust).toHaveBeenCalledTimes(1);
  });
});
