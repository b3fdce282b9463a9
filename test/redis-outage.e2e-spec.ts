import { Logger } from '@nestjs/common';
import { CounterStore } from '../src/limits/counters/counter-store';
import type { FailoverCounterStore } from '../src/limits/counters/failover-counter-store';
import { chat } from './support/chat';
import { logged } from './support/logs';
import { testRedisNamespace } from './support/redis';
import { TcpProxy } from './support/tcp-proxy';
import { startTestApp, TestApp } from './support/test-app';
import { closedPort } from './support/ports';
import { waitUntil } from './support/eventually';

// The documented policy when Redis fails: keep serving, count limits in each instance's memory,
// log it once (then at most every 30 s), and go back to Redis as soon as it answers again.
// "Redis" here is a TCP proxy in front of the machine's Redis, stopped and started by the test.

const namespace = testRedisNamespace();
const REDIS_HOST = '127.0.0.1';
const REDIS_PORT = 6379;

async function remainingAfterOneRequest(app: TestApp, key: string): Promise<string> {
  const response = await chat(app, key);
  expect(response.status).toBe(200);
  return response.headers['x-ratelimit-remaining-requests'];
}

describe('when Redis fails', () => {
  let errors: jest.SpyInstance;
  let infos: jest.SpyInstance;

  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    infos = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(() => namespace.cleanup());

  /** A gateway whose Redis is reached through a proxy, so that a test can cut it off. */
  async function startBehindProxy(): Promise<{ proxy: TcpProxy; gateway: TestApp }> {
    const proxy = new TcpProxy(REDIS_HOST, REDIS_PORT);
    await proxy.start();
    const gateway = await startTestApp({
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: namespace.prefix,
        REDIS_TIMEOUT_MS: '200',
      },
    });
    return { proxy, gateway };
  }

  it('keeps serving with per-instance limits when Redis is unreachable, and logs it once', async () => {
    const gateway = await startTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, REDIS_TIMEOUT_MS: '200' },
    });
    try {
      const key = await gateway.createKey({ rpmLimit: 3 });
      expect([
        await remainingAfterOneRequest(gateway, key),
        await remainingAfterOneRequest(gateway, key),
        await remainingAfterOneRequest(gateway, key),
      ]).toEqual(['2', '1', '0']);
      expect((await chat(gateway, key)).status).toBe(429);
      expect(logged(errors, 'Redis limit storage')).toEqual([
        expect.stringContaining('Redis limit storage unavailable (connect ECONNREFUSED'),
      ]);
    } finally {
      await gateway.close();
    }
  });

  it('falls back to memory while Redis is down and goes back to the shared count when it returns', async () => {
    const { proxy, gateway } = await startBehindProxy();
    const store = gateway.app.get<FailoverCounterStore>(CounterStore);
    try {
      const key = await gateway.createKey({ rpmLimit: 5 });
      expect(await remainingAfterOneRequest(gateway, key)).toBe('4');

      await proxy.stop();
      // This instance's memory starts its own count.
      expect(await remainingAfterOneRequest(gateway, key)).toBe('4');
      expect(await remainingAfterOneRequest(gateway, key)).toBe('3');
      expect(logged(errors, 'Redis limit storage unavailable')).toHaveLength(1);

      await proxy.start();
      await waitUntil(() => store.usingRedis, 8_000, 25);
      // Back on Redis, which still holds the one request counted before the outage.
      expect(await remainingAfterOneRequest(gateway, key)).toBe('3');
      expect(logged(infos, 'Redis limit storage is back after')).toEqual([
        expect.stringContaining('2 limit checks were counted per instance meanwhile'),
      ]);
    } finally {
      await gateway.close();
      await proxy.stop();
    }
  }, 15_000);

  it('does not let a Redis that stops answering hold up requests', async () => {
    const { proxy, gateway } = await startBehindProxy();
    try {
      const key = await gateway.createKey({ rpmLimit: 5 });
      expect(await remainingAfterOneRequest(gateway, key)).toBe('4');
      proxy.hang();
      // The command times out after REDIS_TIMEOUT_MS and the request is counted in memory.
      expect(await remainingAfterOneRequest(gateway, key)).toBe('4');
      expect(logged(errors, 'Redis limit storage unavailable')).toEqual([
        expect.stringContaining('Command timed out'),
      ]);
    } finally {
      await gateway.close();
      await proxy.stop();
    }
  });
});
