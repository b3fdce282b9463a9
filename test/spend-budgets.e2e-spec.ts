import { Client } from 'pg';
import type { CreateVirtualKeyInput } from '../src/keys/virtual-key.types';
import { eventually } from './support/eventually';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { chatBody, chatWith } from './support/chat';
import { startTestApp, TestApp } from './support/test-app';
import {
  completion,
  FakeOpenAiUpstream,
  type UpstreamHandler,
} from './support/upstreams/openai-upstream';

// Dollar budgets (docs/spend.md): a request holds its worst-case cost (prompt estimate at the
// input price + max_tokens at the output price) before the upstream call and settles to its real
// cost after. PROMPT is an estimate of 10 tokens; at $1/M input and $2/M output a
// request with max_tokens 10 holds 10 * $1/M + 10 * $2/M = $0.00003, so $0.0015 pays for 50.

// An estimate of 10 tokens for gpt-4o: 3 of text, 7 of the chat format.
const PROMPT = 'Say hello politely';
const PRICE = { input: '1', output: '2' };
const PER_REQUEST = 30n; // micro-dollars
const BUDGET_FOR_50 = '0.0015';

/** The worst case: the upstream reports the prompt estimate and the whole completion cap. */
const worstCase: UpstreamHandler = (req, res, raw) =>
  completion('x', {
    prompt_tokens: 10,
    completion_tokens: req.body?.max_tokens ?? req.body?.max_completion_tokens ?? 10,
  })(req, res, raw);

let upstream: FakeOpenAiUpstream;
let database: Client;

beforeAll(async () => {
  upstream = await FakeOpenAiUpstream.start();
  database = new Client({ connectionString: process.env.DATABASE_URL });
  await database.connect();
});

afterAll(async () => {
  await database.end();
  await upstream.close();
});

function models() {
  return {
    'alpha-k3': [
      {
        provider: 'openai',
        base_url: upstream.url,
        api_key: 'sk-up',
        model: 'gpt-4o',
        price: PRICE,
      },
    ],
    'beta-v4-pro-0813': [
      {
        provider: 'openai',
        base_url: upstream.url,
        api_key: 'sk-up',
        model: 'gpt-4o',
        price: PRICE,
      },
    ],
  };
}

function createKey(app: TestApp, input: Partial<CreateVirtualKeyInput> = {}) {
  // No request-rate limit: only the dollar budget decides.
  return app.createKeyWithId({ rpmLimit: 0, ...input });
}

const chat = chatWith(chatBody('alpha-k3', PROMPT));

async function storedSpend(keyId: string, count: number): Promise<string> {
  let total = '';
  await eventually(async () => {
    const { rows } = await database.query<{ n: number; total: string }>(
      `SELECT count(*)::int AS n, COALESCE(sum(cost_usd), 0)::text AS total
         FROM usage_records WHERE key_id = $1`,
      [keyId],
    );
    expect(rows[0].n).toBe(count);
    total = rows[0].total;
  }, 10_000);
  return total;
}

function micro(decimal: string): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(12, '0').slice(0, 12)) / 1_000_000n;
}

async function fire200(app: TestApp, secret: string, body: object) {
  upstream.next(...Array.from({ length: 200 }, () => worstCase));
  const responses = await Promise.all(Array.from({ length: 200 }, () => chat(app, secret, body)));
  // The handlers of the refused requests must not answer later tests.
  upstream.clearQueue();
  return responses;
}

const redis = testRedisNamespace();
afterAll(() => redis.cleanup());

describe.each([
  ['Redis', { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redis.prefix }],
  ['memory', { REDIS_URL: '' }],
])('dollar budgets with the %s counter store', (_store, env) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      models: models(),
      env: { ...env, USAGE_FLUSH_INTERVAL_MS: '50', DEFAULT_MAX_TOKENS_RESERVATION: '10' },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('200 concurrent requests with max_tokens at a budget for 50: exactly 50 pass, spend never exceeds it', async () => {
    const key = await createKey(app, { budgetUsd: BUDGET_FOR_50, budgetPeriod: 'day' });
    const responses = await fire200(app, key.secret, { max_tokens: 10 });
    upstream.clearQueue();
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const response of refused) {
      expect(response.body.error.code).toBe('spend_budget_exceeded');
      expect(response.body.error.type).toBe('insufficient_quota');
      expect(response.headers['x-should-retry']).toBe('false');
    }
    expect(refused[0].body.error.message).toMatch(/dollar budget of this API key/);
    const total = await storedSpend(key.id, 50);
    expect(micro(total)).toBe(50n * PER_REQUEST);
    expect(micro(total)).toBeLessThanOrEqual(micro(BUDGET_FOR_50));
    if (_store === 'Redis') {
      // The counter really lives in Redis: nano-dollars, equal to the stored spend.
      const [counter] = await redis.redis.keys(`${redis.prefix}limits:{${key.id}}:spend:*`);
      expect(await redis.redis.hget(counter, 'n')).toBe(String(50n * PER_REQUEST * 1000n));
    }
  });

  it('without max_tokens the default reservation is held in full: answers within it never overshoot', async () => {
    const key = await createKey(app, { budgetUsd: BUDGET_FOR_50, budgetPeriod: 'month' });
    const responses = await fire200(app, key.secret, {});
    upstream.clearQueue();
    expect(responses.filter((r) => r.status === 200)).toHaveLength(50);
    const total = await storedSpend(key.id, 50);
    expect(micro(total)).toBeLessThanOrEqual(micro(BUDGET_FOR_50));
  });

  it('settles to the real cost, so short answers leave room for more requests', async () => {
    // Holds $0.00003 each, costs 10 * $1/M + 1 * $2/M = $0.000012 each.
    const key = await createKey(app, { budgetUsd: '0.00006', budgetPeriod: 'total' });
    const results: number[] = [];
    for (let i = 0; i < 6; i++) {
      upstream.next(completion('x', { prompt_tokens: 10, completion_tokens: 1 }));
      results.push((await chat(app, key.secret, { max_tokens: 10 })).status);
    }
    upstream.clearQueue();
    // 3 * 12 = 36 spent: the 4th holds 30 and only 24 are left. Without settlement to the
    // real cost, only 2 would have passed (2 * 30 = 60).
    expect(results).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = await chat(app, key.secret, { max_tokens: 10 });
    expect(refused.body.error.message).toMatch(/\$0\.000024 of \$0\.00006 left in total/);
    expect(refused.headers['retry-after']).toBeUndefined();
  });
});
