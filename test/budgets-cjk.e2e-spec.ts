import { countTokens } from 'gpt-tokenizer/model/gpt-4o';
import { Client } from 'pg';
import request from 'supertest';
import { eventually } from './support/eventually';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { startTestApp, TestApp } from './support/test-app';
import {
  completion,
  FakeOpenAiUpstream,
  sleep,
  type UpstreamHandler,
} from './support/upstreams/openai-upstream';

// Issue 53: a dollar budget of $1.00 and 200 concurrent requests of 400 CJK characters. The
// upstream reports what OpenAI would: the prompt's real count in gpt-4o's tokenizer (chat format
// included) and the whole completion cap. A prompt estimate of characters / 4 held a quarter of
// such a prompt, and the key spent several times its budget; the estimate must never be below the
// real prompt, so the spend stays within the budget plus one request's hold.

const CJK = '我们在测试一个网关的预算限制是否在非拉丁文字下也能成立。'.repeat(15).slice(0, 400);
const PRICE = { input: '30', output: '60' }; // US dollars per million tokens
// A short answer: the prompt is most of the cost, as for a classification or extraction call.
const MAX_TOKENS = 20;
const BUDGET = '1.00';
const MICRO_PER_TOKEN = { input: 30n, output: 60n };

/**
 * What OpenAI reports: the real prompt count and, as the worst case, the whole cap; after a
 * model's think time, so that the 200 requests are all in flight together.
 */
const realCounts: UpstreamHandler = async (req, res, raw) => {
  await sleep(300);
  completion('好', {
    prompt_tokens: countTokens(req.body.messages),
    completion_tokens: req.body.max_tokens,
  })(req, res, raw);
};

let upstream: FakeOpenAiUpstream;
let database: Client;
const redis = testRedisNamespace();

beforeAll(async () => {
  upstream = await FakeOpenAiUpstream.start();
  database = new Client({ connectionString: process.env.DATABASE_URL });
  await database.connect();
});

afterAll(async () => {
  await database.end();
  await upstream.close();
  await redis.cleanup();
});

describe.each([
  ['memory', { REDIS_URL: '' }],
  ['Redis', { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redis.prefix }],
])('a $1.00 budget under 200 concurrent CJK prompts (%s counters)', (_store, env) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      models: {
        'alpha-k3': [
          {
            provider: 'openai',
            base_url: upstream.url,
            api_key: 'sk-up',
            model: 'gpt-4o',
            price: PRICE,
          },
        ],
      },
      env: { ...env, USAGE_FLUSH_INTERVAL_MS: '50' },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('spends at most the budget plus one request’s hold', async () => {
    const key = await app.createKeyWithId({ rpmLimit: 0, budgetUsd: BUDGET, budgetPeriod: 'day' });
    const messages = [{ role: 'user', content: CJK }];
    const realPrompt = countTokens(messages);
    // chars / 4 is a quarter of what the prompt really costs.
    expect(realPrompt).toBeGreaterThan(2 * (CJK.length / 4));

    upstream.next(...Array.from({ length: 200 }, () => realCounts));
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        request(app.url)
          .post('/v1/chat/completions')
          .set('Authorization', `Bearer ${key.secret}`)
          .send({ model: 'alpha-k3', messages, max_tokens: MAX_TOKENS }),
      ),
    );
    upstream.clearQueue();
    const served = responses.filter((response) => response.status === 200).length;
    for (const response of responses.filter((r) => r.status !== 200)) {
      expect(response.status).toBe(429);
      expect(response.body.error.code).toBe('spend_budget_exceeded');
    }

    let spent = 0n;
    await eventually(async () => {
      const { rows } = await database.query<{ n: number; micro: string }>(
        `SELECT count(*)::int AS n, (COALESCE(sum(cost_usd), 0) * 1000000)::bigint::text AS micro
           FROM usage_records WHERE key_id = $1`,
        [key.id],
      );
      expect(rows[0].n).toBe(served);
      spent = BigInt(rows[0].micro);
    }, 15_000);
    const perRequest =
      BigInt(realPrompt) * MICRO_PER_TOKEN.input + BigInt(MAX_TOKENS) * MICRO_PER_TOKEN.output;
    const budget = 1_000_000n;
    // The figure for the report: how far past the budget the key went, in percent.
    console.log(
      `CJK budget (${_store}): ${served} of 200 served, $${Number(spent) / 1e6} spent of $${BUDGET} ` +
        `(${Number(((spent - budget) * 10_000n) / budget) / 100} % over)`,
    );
    expect(served).toBeGreaterThan(0);
    expect(spent).toBe(BigInt(served) * perRequest);
    expect(spent).toBeLessThanOrEqual(budget + perRequest);
  }, 30_000);
});
