import OpenAI, { RateLimitError } from 'openai';
import { formatDuration } from '../src/limits/rate-limit-headers';
import { chat } from './support/chat';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/upstreams/openai-upstream';

// Request limits per virtual key, counted in the machine's real Redis. Every app here runs the
// built-in mock provider, so only the gateway's own behaviour is under test.

const namespace = testRedisNamespace();
const redisEnv = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: namespace.prefix };

describe('request limits per virtual key (Redis)', () => {
  let gateway: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({ env: redisEnv });
    second = await startTestApp({ env: redisEnv });
  });

  afterAll(async () => {
    await gateway.close();
    await second.close();
    await namespace.cleanup();
  });

  it('sends OpenAI rate-limit headers on every answer to an authenticated request', async () => {
    const key = await gateway.createKey({ rpmLimit: 5 });
    const ok = await chat(gateway, key);
    expect(ok.status).toBe(200);
    expect(ok.headers['x-ratelimit-limit-requests']).toBe('5');
    expect(ok.headers['x-ratelimit-remaining-requests']).toBe('4');
    // The window opened with this request: a full minute is left.
    expect(ok.headers['x-ratelimit-reset-requests']).toBe('1m0s');

    const stream = await chat(gateway, key, { stream: true });
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['x-ratelimit-remaining-requests']).toBe('3');

    const invalid = await chat(gateway, key, { messages: 'not a list' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['x-ratelimit-remaining-requests']).toBe('2');

    const unknownModel = await chat(gateway, key, { model: 'no-such-model' });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.headers['x-ratelimit-remaining-requests']).toBe('1');

    const unauthenticated = await chat(gateway, 'sk-gw-not-a-real-key-0000000000');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['x-ratelimit-limit-requests']).toBeUndefined();
  });

  it('refuses the request over the limit with a 429 whose Retry-After counts down the real window', async () => {
    const key = await gateway.createKey({ rpmLimit: 5 });
    const windowOpenedBy = Date.now();
    for (let i = 0; i < 5; i++) expect((await chat(gateway, key)).status).toBe(200);

    const refused = await chat(gateway, key);
    const elapsedSeconds = (Date.now() - windowOpenedBy) / 1000;
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        message: expect.stringContaining('limit 5 per 60 s'),
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
        source: 'gateway',
      },
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(60 - elapsedSeconds));
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(refused.headers['x-ratelimit-reset-requests']).toBe(formatDuration(retryAfter * 1000));

    // A constant would not move; the window's end does not move either, so the wait shrinks.
    await sleep(1_100);
    const later = await chat(gateway, key);
    expect(later.status).toBe(429);
    expect(Number(later.headers['retry-after'])).toBeLessThanOrEqual(retryAfter - 1);
  });

  it('applies the default of 100 requests per minute to a key without its own limit', async () => {
    const key = await gateway.createKey();
    const windowOpenedBy = Date.now();
    for (let i = 1; i <= 100; i++) {
      const response = await chat(gateway, key);
      expect([response.status, response.headers['x-ratelimit-remaining-requests']]).toEqual([
        200,
        String(100 - i),
      ]);
    }
    const refused = await chat(gateway, key);
    const elapsedSeconds = (Date.now() - windowOpenedBy) / 1000;
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('100');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(60 - elapsedSeconds));
  });

  it('gives the official client a RateLimitError with the code and Retry-After', async () => {
    const key = await gateway.createKey({ rpmLimit: 1 });
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'hi' }],
      });
    await ask();
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect(Number((error as RateLimitError).headers?.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits each key on its own', async () => {
    const busy = await gateway.createKey({ rpmLimit: 1 });
    const quiet = await gateway.createKey({ rpmLimit: 1 });
    expect((await chat(gateway, busy)).status).toBe(200);
    expect((await chat(gateway, busy)).status).toBe(429);
    expect((await chat(gateway, quiet)).status).toBe(200);
  });

  it('shares one limit between two instances on the same Redis', async () => {
    const key = await gateway.createKey({ rpmLimit: 5 });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await chat(i % 2 === 0 ? gateway : second, key);
      expect(response.status).toBe(200);
      remaining.push(response.headers['x-ratelimit-remaining-requests']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    expect((await chat(second, key)).status).toBe(429);
    expect((await chat(gateway, key)).status).toBe(429);
  });

  it('lets concurrent requests through both instances exactly up to the limit', async () => {
    const key = await gateway.createKey({ rpmLimit: 10 });
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => chat(i % 2 === 0 ? gateway : second, key)),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(14);
  });
});

describe('request limits without Redis', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startTestApp({ env: { REDIS_URL: '', KEY_RPM_LIMIT: '3' } });
    second = await startTestApp({ env: { REDIS_URL: '', KEY_RPM_LIMIT: '3' } });
  });

  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('takes the default from KEY_RPM_LIMIT, and a key setting over that', async () => {
    const byDefault = await first.createKey();
    for (let i = 0; i < 3; i++) expect((await chat(first, byDefault)).status).toBe(200);
    expect((await chat(first, byDefault)).status).toBe(429);

    const ownLimit = await first.createKey({ rpmLimit: 4 });
    for (let i = 0; i < 4; i++) expect((await chat(first, ownLimit)).status).toBe(200);
    expect((await chat(first, ownLimit)).status).toBe(429);
  });

  it('counts per instance: two replicas together allow twice the limit', async () => {
    const key = await first.createKey();
    for (let i = 0; i < 3; i++) expect((await chat(first, key)).status).toBe(200);
    expect((await chat(first, key)).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await chat(second, key)).status).toBe(200);
    expect((await chat(second, key)).status).toBe(429);
  });
});
