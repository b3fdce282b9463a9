import { Redis } from 'ioredis';
import { RedisCounterStore } from '../src/limits/counters/redis-counter-store';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';

// The Lua scripts against the machine's Redis: the same rules the memory store's unit test pins.

describe('RedisCounterStore', () => {
  const namespace = testRedisNamespace();
  const redis = new Redis(TEST_REDIS_URL);
  const store = new RedisCounterStore(redis, namespace.prefix);
  let keyNumber = 0;
  const freshKey = () => `limits:{contract-${keyNumber++}}:test`;

  afterAll(async () => {
    redis.disconnect();
    await namespace.cleanup();
  });

  it('opens a window with the first charge, on Redis time, and makes the key expire with it', async () => {
    const key = freshKey();
    const { counters } = await store.consume([{ key, limit: 5, windowMs: 60_000 }], 2);
    expect(counters).toEqual([{ used: 2, endsAt: expect.any(Number), resetMs: 60_000 }]);
    const [seconds, micros] = await redis.time();
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect(counters[0].endsAt - redisNow).toBeGreaterThan(59_000);
    const ttl = await redis.pttl(namespace.prefix + key);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('refuses without counting the refused charge', async () => {
    const spec = { key: freshKey(), limit: 2, windowMs: 60_000 };
    await store.consume([spec], 2);
    expect(await store.consume([spec], 1)).toMatchObject({
      allowed: false,
      refused: 0,
      counters: [{ used: 2 }],
      backend: 'redis',
    });
    expect(await redis.hget(namespace.prefix + spec.key, 'n')).toBe('2');
  });

  it('charges several counters all together or not at all', async () => {
    const roomy = { key: freshKey(), limit: 100, windowMs: 60_000 };
    const tight = { key: freshKey(), limit: 10, endsAt: Date.now() + 3_600_000 };
    expect(await store.consume([roomy, tight], 8)).toMatchObject({
      allowed: true,
      counters: [{ used: 8 }, { used: 8, endsAt: tight.endsAt }],
    });
    expect(await store.consume([roomy, tight], 5)).toMatchObject({
      allowed: false,
      refused: 1,
      counters: [{ used: 8 }, { used: 8 }],
    });
    expect(await redis.hget(namespace.prefix + roomy.key, 'n')).toBe('8');
  });

  it('ends a fixed period at its given end', async () => {
    const spec = { key: freshKey(), limit: 1, endsAt: Date.now() + 10_000 };
    await store.consume([spec], 1);
    expect(await redis.pexpiretime(namespace.prefix + spec.key)).toBe(spec.endsAt);
  });

  it('adjusts only the window it was given, never below zero', async () => {
    const spec = { key: freshKey(), limit: 100, windowMs: 60_000 };
    const { counters } = await store.consume([spec], 50);
    await store.adjust([{ key: spec.key, endsAt: counters[0].endsAt }], 80);
    expect(await redis.hget(namespace.prefix + spec.key, 'n')).toBe('130');
    await store.adjust([{ key: spec.key, endsAt: counters[0].endsAt }], -500);
    expect(await redis.hget(namespace.prefix + spec.key, 'n')).toBe('0');
    // A reservation from an earlier window (another end) leaves this one alone.
    await store.adjust([{ key: spec.key, endsAt: counters[0].endsAt - 60_000 }], 7);
    expect(await redis.hget(namespace.prefix + spec.key, 'n')).toBe('0');
  });

  it('starts a new window once the old one has ended', async () => {
    const spec = { key: freshKey(), limit: 1, windowMs: 200 };
    const first = await store.consume([spec], 1);
    expect((await store.consume([spec], 1)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, first.counters[0].resetMs + 20));
    const next = await store.consume([spec], 1);
    expect(next).toMatchObject({ allowed: true, counters: [{ used: 1 }] });
    expect(next.counters[0].endsAt).toBeGreaterThan(first.counters[0].endsAt);
  });
});
