import { Redis } from 'ioredis';
import { hashTag, RedisCounterStore } from '../src/limits/counters/redis-counter-store';
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

  describe('settlements sent together', () => {
    /** Scripts this connection sends (EVALSHA, or EVAL after a NOSCRIPT), counted as they leave. */
    function countScripts(): () => number {
      const send = jest.spyOn(redis, 'sendCommand');
      return () =>
        send.mock.calls.filter(([command]) => ['evalsha', 'eval'].includes(command.name)).length;
    }
    afterEach(() => jest.restoreAllMocks());

    const counter = (name: string) => ({
      key: `limits:{${name}-${keyNumber++}}:test`,
      limit: 1_000,
      windowMs: 60_000,
    });
    const count = async (key: string) => Number(await redis.hget(namespace.prefix + key, 'n'));

    it('sends the settlements of one event-loop turn as one command', async () => {
      const spec = counter('batch');
      const { counters } = await store.consume([spec], 100);
      const window = { key: spec.key, endsAt: counters[0].endsAt };
      const scripts = countScripts();
      await Promise.all([
        store.adjust([window], -10),
        store.adjust([window], -20),
        store.adjust([window], 5),
      ]);
      expect(scripts()).toBe(1);
      expect(await count(spec.key)).toBe(75);
    });

    it('applies each settlement in turn, clamped at zero each time, as separate calls would', async () => {
      const spec = counter('clamp');
      const { counters } = await store.consume([spec], 10);
      const window = { key: spec.key, endsAt: counters[0].endsAt };
      // Summed first, -30 + 5 would leave 0; applied in turn, 10 - 30 stops at 0, then + 5.
      await Promise.all([store.adjust([window], -30), store.adjust([window], 5)]);
      expect(await count(spec.key)).toBe(5);
    });

    it('sends what is queued before a charge, so the charge counts it', async () => {
      const spec = { ...counter('order'), limit: 100 };
      const { counters } = await store.consume([spec], 50);
      const settled = store.adjust([{ key: spec.key, endsAt: counters[0].endsAt }], -30);
      // 50 + 70 is over the limit; 20 + 70 is not.
      const charge = await store.consume([spec], 70);
      await settled;
      expect(charge).toMatchObject({ allowed: true, counters: [{ used: 90 }] });
    });

    it('sends the charges and settlements of one turn in one socket write', async () => {
      const spec = counter('write');
      const { counters } = await store.consume([spec], 100);
      const window = { key: spec.key, endsAt: counters[0].endsAt };
      // Node's Writable hands a corked socket's chunks to _writev at once, else each to _write.
      const writes = [jest.spyOn(redis.stream, '_writev'), jest.spyOn(redis.stream, '_write')];
      await Promise.all([
        store.consume([spec], 1),
        store.adjust([window], -10),
        store.consume([spec], 1),
        store.adjust([window], -10),
      ]);
      expect(writes.map((write) => write.mock.calls.length)).toEqual([1, 0]);
      expect(await count(spec.key)).toBe(82);
    });

    it('charges in the order asked for within a turn', async () => {
      const spec = { ...counter('fifo'), limit: 10 };
      const [first, second] = await Promise.all([
        store.consume([spec], 6),
        store.consume([spec], 6),
      ]);
      expect([first.allowed, second.allowed]).toEqual([true, false]);
    });

    it('applies a settlement asked for after a charge in the same turn before that charge', async () => {
      const spec = { ...counter('after'), limit: 100 };
      const { counters } = await store.consume([spec], 50);
      const charge = store.consume([spec], 70);
      await store.adjust([{ key: spec.key, endsAt: counters[0].endsAt }], -30);
      expect(await charge).toMatchObject({ allowed: true, counters: [{ used: 90 }] });
    });

    it('rejects each caller of a settlement that Redis refuses, and sends the rest of the turn', async () => {
      const spec = counter('wrongtype');
      // Not a counter hash: the script's HMGET fails with WRONGTYPE inside Redis.
      await redis.set(namespace.prefix + spec.key, 'not a hash');
      const window = { key: spec.key, endsAt: Date.now() + 60_000 };
      const other = counter('wrongtype-other');
      const [first, second, charge] = await Promise.allSettled([
        store.adjust([window], -1),
        store.adjust([window], -2),
        store.consume([other], 1),
      ]);
      expect(first).toMatchObject({ status: 'rejected', reason: expect.any(Error) });
      expect((first as PromiseRejectedResult).reason.message).toMatch(/WRONGTYPE/);
      expect(second.status).toBe('rejected');
      expect(charge).toMatchObject({ status: 'fulfilled', value: { allowed: true } });
    });

    it('rejects a command that throws instead of rejecting, and still sends the rest of the turn', async () => {
      const commands = redis as unknown as { limitsConsume: (...args: unknown[]) => unknown };
      jest.spyOn(commands, 'limitsConsume').mockImplementationOnce(() => {
        throw new Error('thrown while sending');
      });
      const [thrown, next] = await Promise.allSettled([
        store.consume([counter('throws')], 1),
        store.consume([counter('after-throw')], 1),
      ]);
      expect(thrown).toMatchObject({
        status: 'rejected',
        reason: { message: 'thrown while sending' },
      });
      expect(next).toMatchObject({ status: 'fulfilled', value: { allowed: true } });
    });

    it('sends one command per hash tag, so each stays within one Redis Cluster slot', async () => {
      const [a, b] = [counter('slot-a'), counter('slot-b')];
      const [first, second] = await Promise.all([store.consume([a], 40), store.consume([b], 40)]);
      const scripts = countScripts();
      await Promise.all([
        store.adjust([{ key: a.key, endsAt: first.counters[0].endsAt }], -1),
        store.adjust([{ key: b.key, endsAt: second.counters[0].endsAt }], -2),
        store.adjust([{ key: a.key, endsAt: first.counters[0].endsAt }], -3),
      ]);
      expect(scripts()).toBe(2);
      expect([await count(a.key), await count(b.key)]).toEqual([36, 38]);
    });

    it('splits a large turn into commands of at most 256 counters, all applied', async () => {
      const spec = counter('large');
      const { counters } = await store.consume([spec], 1_000);
      const window = { key: spec.key, endsAt: counters[0].endsAt };
      const scripts = countScripts();
      await Promise.all(Array.from({ length: 300 }, () => store.adjust([window], -1)));
      expect(scripts()).toBe(2);
      expect(await count(spec.key)).toBe(700);
    });

    it('rejects every settlement of a command that fails', async () => {
      // A connection already closed: ioredis refuses every command sent on it.
      const offline = new Redis(TEST_REDIS_URL, { lazyConnect: true });
      offline.disconnect();
      const offlineStore = new RedisCounterStore(offline, namespace.prefix);
      const window = { key: counter('offline').key, endsAt: Date.now() + 60_000 };
      const results = await Promise.allSettled([
        offlineStore.adjust([window], -1),
        offlineStore.adjust([window], -2),
      ]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    });

    it('finds the hash tag as Redis Cluster does', () => {
      expect(hashTag('gateway:limits:{key-1}:tpm')).toBe('key-1');
      expect(hashTag('gateway:limits:{team:7}:budget:2026-11')).toBe('team:7');
      expect(hashTag('a{}b{c}')).toBe('a{}b{c}');
      expect(hashTag('no-tag')).toBe('no-tag');
      expect(hashTag('{x}{y}')).toBe('x');
    });
  });
});
