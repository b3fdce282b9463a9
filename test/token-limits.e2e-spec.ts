import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { estimatePromptTokens } from '../src/limits/token-reservation';
import { promptTokenCounterFor } from '../src/common/tokens/prompt-token-counter';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { chatBody, chatWith } from './support/chat';
import { startTestApp, TestApp } from './support/test-app';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  streamAnswer,
} from './support/upstreams/openai-upstream';
import { eventually } from './support/eventually';

// Token limits per key, counted in the machine's real Redis. A request reserves its prompt
// estimate (an upper bound, from gpt-4o's tokenizer here) plus max_tokens, or
// DEFAULT_MAX_TOKENS_RESERVATION, and settles to what it used. PROMPT is an estimate of 10 tokens:
// 3 of text and 7 of the chat format.

const PROMPT = 'Say hello politely';
const MESSAGES = [{ role: 'user', content: PROMPT }];
it('PROMPT is an estimate of 10 tokens for gpt-4o', () => {
  expect(
    estimatePromptTokens(MESSAGES, promptTokenCounterFor({ provider: 'openai', model: 'gpt-4o' })),
  ).toBe(10);
});
const namespace = testRedisNamespace();
const redisEnv = {
  REDIS_URL: TEST_REDIS_URL,
  REDIS_KEY_PREFIX: namespace.prefix,
  DEFAULT_MAX_TOKENS_RESERVATION: '100',
};
const budgetEnv = { ...redisEnv, KEY_TOKEN_BUDGET: '100', KEY_BUDGET_PERIOD: 'month' };

let upstream: FakeOpenAiUpstream;

function models() {
  return {
    'alpha-k3': [upstream.deployment('gpt-4o')],
  };
}

const chat = chatWith(chatBody('alpha-k3', PROMPT));

function tokensCounted(keyId: string): Promise<string | null> {
  return namespace.redis.hget(`${namespace.prefix}limits:{${keyId}}:tpm`, 'n');
}

// A settlement reaches Redis at the end of the gateway's event-loop turn, after the answer's last
// bytes: this test's own connection may read before it (docs/keys-and-limits.md). The gateway's
// next check counts it in any case (the second request's headers in the first test).
const counted = (keyId: string, expected: string) =>
  eventually(async () => expect(await tokensCounted(keyId)).toBe(expected), 5_000, 20);

beforeAll(async () => {
  upstream = await FakeOpenAiUpstream.start();
});

afterAll(async () => {
  await upstream.close();
  await namespace.cleanup();
});

describe('tokens per minute', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({ models: models(), env: redisEnv });
  });

  afterAll(() => gateway.close());

  it('reserves prompt estimate + max_tokens (or the default) and settles to the real usage', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 1000 });
    upstream.next(completion('ok', { prompt_tokens: 9, completion_tokens: 12 }));
    const first = await chat(gateway, key.secret, { max_tokens: 50 });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-tokens']).toBe('1000');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('940');
    expect(first.headers['x-ratelimit-reset-tokens']).toBe('1m0s');
    await counted(key.id, '21');

    upstream.next(completion('ok', { prompt_tokens: 9, completion_tokens: 12 }));
    const second = await chat(gateway, key.secret);
    expect(second.headers['x-ratelimit-remaining-tokens']).toBe(String(1000 - 21 - (10 + 100)));
    await counted(key.id, '42');
  });

  it('without max_tokens, reserves the default only as far as the minute has room', async () => {
    // A limit below prompt + default (10 + 100): the key must still be usable without max_tokens.
    const key = await gateway.createKeyWithId({ tpmLimit: 60 });
    for (let i = 0; i < 3; i++) {
      upstream.next(completion('ok', { prompt_tokens: 9, completion_tokens: 1 }));
      const response = await chat(gateway, key.secret);
      expect(response.status).toBe(200);
    }
    await counted(key.id, '30');
    // With max_tokens the client's cap is reserved whole, so it does not fit.
    const refused = await chat(gateway, key.secret, { max_tokens: 25 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('token_rate_limit_exceeded');
  });

  it('sends no token headers for a key without a token limit', async () => {
    const key = await gateway.createKeyWithId();
    const response = await chat(gateway, key.secret);
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit-tokens']).toBeUndefined();
    expect(response.headers['x-ratelimit-limit-requests']).toBe('100');
  });

  it('refuses with token_rate_limit_exceeded and Retry-After when the minute has no room left', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 100 });
    upstream.next(completion('long answer', { prompt_tokens: 9, completion_tokens: 71 }));
    expect((await chat(gateway, key.secret, { max_tokens: 50 })).status).toBe(200);
    const upstreamCalls = upstream.requests.length;

    const refused = await chat(gateway, key.secret, { max_tokens: 20 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'token_rate_limit_exceeded', type: 'tokens' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('20');
    expect(refused.headers['x-should-retry']).toBeUndefined();
    expect(upstream.requests.length).toBe(upstreamCalls);
    expect(await tokensCounted(key.id)).toBe('80');
  });

  it('refuses for good a request that reserves more than the whole limit', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 50 });
    const refused = await chat(gateway, key.secret, { max_tokens: 100 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('token_rate_limit_exceeded');
    expect(refused.body.error.message).toContain('Lower max_tokens');
    expect(refused.headers['x-should-retry']).toBe('false');
    expect(await tokensCounted(key.id)).toBeNull();
  });

  it('settles a completed stream to the usage the provider reported', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 1000 });
    upstream.next(
      streamAnswer({ pieces: ['a', 'b'], usage: { prompt_tokens: 7, completion_tokens: 3 } }),
    );
    const response = await chat(gateway, key.secret, { stream: true, max_tokens: 50 });
    expect(response.text).toContain('data: [DONE]');
    expect(response.headers['x-ratelimit-remaining-tokens']).toBe('940');
    await counted(key.id, '10');
  });

  it('settles an aborted stream to what was streamed before the client left', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 1000 });
    // One content chunk, then silence until the gateway hangs up.
    upstream.next((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }],
      };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    const aborted = upstream.waitForAbort();
    await new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        max_tokens: 500,
      });
      const client = httpRequest(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      });
      client.on('response', (response) => {
        response.on('data', (data: Buffer) => {
          if (data.toString().includes('Hello')) client.destroy();
        });
        response.on('close', resolve);
      });
      client.on('error', () => resolve());
      client.on('timeout', reject);
      client.end(body);
    });
    await aborted;
    // Reserved 10 + 500; settled to the prompt estimate the stream path makes without the
    // deployment's tokenizer (the UTF-8 byte bound) plus "Hello" (5 characters: 2 tokens).
    await counted(key.id, String(estimatePromptTokens(MESSAGES) + 2));
  });

  it('gives the reservation back when the provider fails', async () => {
    const key = await gateway.createKeyWithId({ tpmLimit: 1000 });
    upstream.next(
      errorResponse(400, { error: { message: 'bad request', type: 'invalid_request_error' } }),
    );
    const failed = await chat(gateway, key.secret);
    expect(failed.status).toBe(400);
    expect(failed.headers['x-ratelimit-remaining-tokens']).toBe(String(1000 - 110));
    await counted(key.id, '0');
  });
});

describe('token budget per period', () => {
  let gateway: TestApp;
  let peer: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({ models: models(), env: budgetEnv });
    peer = await startTestApp({ models: models(), env: budgetEnv });
  });

  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });

  it('answers budget_exceeded with x-should-retry: false once the budget is spent, on every instance', async () => {
    const key = await gateway.createKeyWithId();
    // Each answer uses 21 tokens. Four fit (84), a fifth reserving 15 still fits (99) and
    // settles to 105: over the budget, so the sixth is refused.
    for (let i = 0; i < 4; i++)
      expect((await chat(gateway, key.secret, { max_tokens: 10 })).status).toBe(200);
    expect((await chat(peer, key.secret, { max_tokens: 5 })).status).toBe(200);
    const upstreamCalls = upstream.requests.length;

    const refused = await chat(gateway, key.secret, { max_tokens: 10 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'budget_exceeded',
      type: 'insufficient_quota',
      param: null,
    });
    expect(refused.body.error.message).toContain('is spent: 105 of 100 tokens this month');
    expect(refused.headers['x-should-retry']).toBe('false');
    const now = new Date();
    const secondsToNextMonth =
      (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
    expect(Math.abs(Number(refused.headers['retry-after']) - secondsToNextMonth)).toBeLessThan(3);

    expect((await chat(peer, key.secret, { max_tokens: 1 })).status).toBe(429);
    expect(upstream.requests.length).toBe(upstreamCalls);
  });

  it('is not retried by the official client, whose default would retry a 429 twice', async () => {
    const key = await gateway.createKeyWithId();
    upstream.next(completion('spend it all', { prompt_tokens: 50, completion_tokens: 60 }));
    expect((await chat(gateway, key.secret, { max_tokens: 20 })).status).toBe(200);

    let attempts = 0;
    const client = new OpenAI({
      apiKey: key.secret,
      baseURL: `${gateway.url}/v1`,
      fetch: (url, init) => {
        attempts++;
        return fetch(url, init);
      },
    });
    const error = await client.chat.completions
      .create({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'budget_exceeded' });
    expect(attempts).toBe(1);
  });

  it('tells a request that does not fit the budget left how much is left', async () => {
    const key = await gateway.createKeyWithId();
    const refused = await chat(gateway, key.secret, { max_tokens: 200 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    expect(refused.body.error.message).toContain(
      'has 100 of 100 tokens left this month, and this request reserves 210',
    );
  });

  it('keeps a spent budget across a gateway restart (the count lives in Redis)', async () => {
    const key = await gateway.createKeyWithId();
    upstream.next(completion('spend it all', { prompt_tokens: 50, completion_tokens: 60 }));
    expect((await chat(gateway, key.secret, { max_tokens: 20 })).status).toBe(200);
    await peer.close();
    peer = await startTestApp({ models: models(), env: budgetEnv });
    expect((await chat(peer, key.secret, { max_tokens: 1 })).status).toBe(429);
  });
});
