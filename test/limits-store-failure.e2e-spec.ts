import { Logger } from '@nestjs/common';
import request from 'supertest';
import { chat } from './support/chat';
import { waitUntil } from './support/eventually';
import { testRedisNamespace } from './support/redis';
import { TcpProxy } from './support/tcp-proxy';
import { startTestApp, TestApp } from './support/test-app';

// LIMITS_ON_STORE_FAILURE (docs/keys-and-limits.md, "When Redis fails"): what a key's limits do
// while the Redis counter store is down. "Redis" is a TCP proxy in front of the machine's Redis,
// stopped and started again by the test while requests keep coming.

const namespace = testRedisNamespace();
afterAll(() => namespace.cleanup());

interface Answer {
  phase: 'before' | 'down' | 'after';
  key: 'limited' | 'unlimited';
  status: number;
  code?: string;
  retryAfter?: string;
}

async function gauge(app: TestApp): Promise<string | undefined> {
  const metrics = await request(app.url).get('/metrics');
  return /^gateway_counter_store_up (\d)$/m.exec(metrics.text)?.[1];
}

/**
 * Sends a request per key every 20 ms until stopped, recording each answer with the phase it was
 * sent and answered in (one that spans a change of phase is left out). Bounded: at most 400 rounds.
 */
function load(app: TestApp, keys: { limited: string; unlimited: string }) {
  const answers: Answer[] = [];
  const state = { phase: 'before' as Answer['phase'], running: true };
  const done = (async () => {
    for (let round = 0; round < 400 && state.running; round++) {
      const phase = state.phase;
      await Promise.all(
        (['limited', 'unlimited'] as const).map(async (key) => {
          const response = await chat(app, keys[key], { max_tokens: 5 });
          // One still in flight when the phase changed may have met the store on either side.
          if (state.phase !== phase) return;
          answers.push({
            phase,
            key,
            status: response.status,
            code: response.body?.error?.code,
            retryAfter: response.headers['retry-after'],
          });
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { answers, state, done };
}

describe.each(['closed', 'local'] as const)('LIMITS_ON_STORE_FAILURE=%s', (policy) => {
  let errors: jest.SpyInstance;
  let infos: jest.SpyInstance;
  let proxy: TcpProxy;
  let gateway: TestApp;

  beforeEach(async () => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    infos = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    proxy = new TcpProxy('127.0.0.1', 6379);
    await proxy.start();
    gateway = await startTestApp({
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: namespace.prefix,
        // Above a loaded machine's slowest answer, so that only the outage counts as a failure.
        REDIS_TIMEOUT_MS: '1000',
        LIMITS_ON_STORE_FAILURE: policy,
        ERROR_LOG_INTERVAL_MS: '300',
      },
    });
  });

  afterEach(async () => {
    await gateway.close();
    await proxy.stop();
    jest.restoreAllMocks();
  });

  it('keeps serving keys without limits, says so on /metrics and in the log, and recovers by itself', async () => {
    const keys = {
      limited: await gateway.createKey({ rpmLimit: 10_000, budgetUsd: '100', budgetPeriod: 'day' }),
      unlimited: await gateway.createKey({ rpmLimit: 0 }),
    };
    // Connected (on a busy machine the first connection may still be on its way).
    await waitUntil(async () => (await gauge(gateway)) === '1', 8_000, 25);
    const traffic = load(gateway, keys);
    await new Promise((resolve) => setTimeout(resolve, 600));

    await proxy.stop();
    traffic.state.phase = 'down';
    await waitUntil(async () => (await gauge(gateway)) === '0', 8_000, 25);
    // Long enough for the interval's "still unavailable" lines.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    await proxy.start();
    await waitUntil(async () => (await gauge(gateway)) === '1', 8_000, 25);
    traffic.state.phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 600));
    traffic.state.running = false;
    await traffic.done;

    const of = (phase: Answer['phase'], key: Answer['key']) =>
      traffic.answers.filter((answer) => answer.phase === phase && answer.key === key);
    for (const phase of ['before', 'down', 'after'] as const)
      expect(of(phase, 'unlimited').length).toBeGreaterThan(0);
    // Keys without limits never touch the store: served throughout.
    expect(
      traffic.answers.filter((a) => a.key === 'unlimited').every((a) => a.status === 200),
    ).toBe(true);
    expect(of('before', 'limited').every((a) => a.status === 200)).toBe(true);
    expect(of('after', 'limited').every((a) => a.status === 200)).toBe(true);
    const down = of('down', 'limited');
    if (policy === 'closed') {
      // Refused while the count is out of reach (a request sent just before the cut may pass).
      const refused = down.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(down.length / 2);
      for (const answer of refused) {
        expect(answer.code).toBe('limits_unavailable');
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect(down.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    } else {
      // Counted in this instance's memory meanwhile.
      expect(down.every((a) => a.status === 200)).toBe(true);
    }

    const lines = errors.mock.calls
      .map(([message]) => String(message))
      .filter((message) => message.includes('Redis limit storage'));
    expect(lines[0]).toContain(
      policy === 'closed'
        ? 'requests of keys with limits or budgets are refused (503) until it is back'
        : 'limits are now counted per instance, in memory',
    );
    // One line per interval (300 ms) while down, not one per failed request.
    const still = lines.filter((line) => line.includes('still unavailable'));
    expect(still.length).toBeGreaterThanOrEqual(2);
    expect(still.length).toBeLessThan(down.length);
    expect(
      infos.mock.calls.filter(([message]) =>
        String(message).includes('Redis limit storage is back'),
      ),
    ).toHaveLength(1);
  }, 30_000);
});
