import OpenAI from 'openai';
import { Client } from 'pg';
import { costOf, formatUsd, toPrice } from '../src/common/money/price';
import {
  anthropicAnswer,
  ANTHROPIC_TEST_KEY,
  FakeAnthropicUpstream,
} from './support/upstreams/anthropic-upstream';
import {
  FakeGeminiUpstream,
  geminiAnswer,
  GEMINI_TEST_KEY,
} from './support/upstreams/gemini-upstream';
import { completion, FakeOpenAiUpstream, streamAnswer } from './support/upstreams/openai-upstream';
import { chat } from './support/chat';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

// Token classes and costs end to end (docs/spend.md): each provider's fake upstream reports its
// own token classes; the gateway answers with x-gateway-cost-usd and stores classes, cost and
// price version in the usage record, which Postgres sums exactly as numeric.

const PRICE = {
  input: '1.25',
  cached_input: '0.125',
  cache_write: '1.5625',
  output: '10',
  reasoning: '12',
};

interface Row {
  request_id: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: string | null;
  price_version: string | null;
  status: string;
}

describe('cost per request', () => {
  let openai: FakeOpenAiUpstream;
  let anthropic: FakeAnthropicUpstream;
  let gemini: FakeGeminiUpstream;
  let gateway: TestApp;
  let database: Client;
  let secret: string;
  let keyId: string;

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    openai = await FakeOpenAiUpstream.start();
    anthropic = await FakeAnthropicUpstream.start();
    gemini = await FakeGeminiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [
          {
            provider: 'openai',
            base_url: openai.url,
            api_key: 'sk-up',
            model: 'o4-mini',
            name: 'priced-openai',
            price: PRICE,
          },
        ],
        'beta-v4-pro-0813': [
          {
            provider: 'anthropic',
            base_url: anthropic.url,
            api_key: ANTHROPIC_TEST_KEY,
            model: 'claude-sonnet-4-5',
            price: PRICE,
          },
        ],
        'beta-v4-flash-0731': [
          {
            provider: 'gemini',
            base_url: gemini.url,
            api_key: GEMINI_TEST_KEY,
            model: 'gemini-2.5-flash',
            price: { input: '0.30', cached_input: '0.075', output: '2.50' },
          },
        ],
        unpriced: [{ provider: 'mock' }],
        cheap: [
          {
            provider: 'openai',
            base_url: openai.url,
            api_key: 'sk-up',
            model: 'gpt-4o-mini',
            price: { input: '0.15', output: '0.60' },
          },
        ],
      },
      env: { USAGE_FLUSH_INTERVAL_MS: '50', SSE_HEARTBEAT_MS: '0' },
    });
    ({ id: keyId, secret } = await gateway.createKeyWithId());
  });

  afterAll(async () => {
    await gateway.close();
    await database.end();
    await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  });

  const chatWithId = (model: string, requestId: string, body: object = {}) =>
    chat(gateway, secret, { model, ...body }, { 'x-request-id': requestId });

  async function row(requestId: string): Promise<Row> {
    let found: Row | undefined;
    await eventually(async () => {
      const result = await database.query<Row>(
        `SELECT request_id, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens,
                reasoning_tokens, cost_usd::text, price_version, status
           FROM usage_records WHERE key_id = $1 AND request_id = $2`,
        [keyId, requestId],
      );
      expect(result.rows).toHaveLength(1);
      found = result.rows[0];
    }, 5_000);
    return found!;
  }

  it('OpenAI: cached and reasoning tokens are priced at their own rates', async () => {
    openai.next(
      completion('42', {
        prompt_tokens: 1830,
        completion_tokens: 420,
        prompt_tokens_details: { cached_tokens: 1536 },
        completion_tokens_details: { reasoning_tokens: 384 },
      }),
    );
    const response = await chatWithId('alpha-k3', 'cost-openai');
    expect(response.status).toBe(200);
    // 294 * 1.25 + 1536 * 0.125 + 36 * 10 + 384 * 12 = 5527.5 per million tokens.
    expect(response.headers['x-gateway-cost-usd']).toBe('0.0055275');
    expect(await row('cost-openai')).toMatchObject({
      prompt_tokens: 1830,
      completion_tokens: 420,
      cached_tokens: 1536,
      cache_write_tokens: null,
      reasoning_tokens: 384,
      cost_usd: '0.005527500000',
      price_version: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
  });

  it('Anthropic: cache reads and writes are added to the prompt and priced apart', async () => {
    anthropic.next(
      anthropicAnswer({
        text: ['ok'],
        usage: {
          input_tokens: 384,
          output_tokens: 112,
          cache_read_input_tokens: 2048,
          cache_creation_input_tokens: 100,
        },
      }),
    );
    const response = await chatWithId('beta-v4-pro-0813', 'cost-anthropic');
    expect(response.status).toBe(200);
    expect(response.body.usage.prompt_tokens).toBe(384 + 2048 + 100);
    // 384 * 1.25 + 2048 * 0.125 + 100 * 1.5625 + 112 * 10 = 2012.25 per million tokens.
    expect(response.headers['x-gateway-cost-usd']).toBe('0.00201225');
    expect(await row('cost-anthropic')).toMatchObject({
      prompt_tokens: 2532,
      cached_tokens: 2048,
      cache_write_tokens: 100,
      reasoning_tokens: null,
      cost_usd: '0.002012250000',
    });
  });

  it('Gemini: cached content and thoughts, with reasoning falling back to the output price', async () => {
    gemini.next(
      geminiAnswer({
        text: ['ok'],
        usage: {
          promptTokenCount: 4120,
          candidatesTokenCount: 18,
          thoughtsTokenCount: 412,
          cachedContentTokenCount: 4096,
        },
      }),
    );
    const response = await chatWithId('beta-v4-flash-0731', 'cost-gemini');
    expect(response.status).toBe(200);
    // 24 * 0.30 + 4096 * 0.075 + (18 + 412) * 2.50 = 1389.4 per million tokens.
    expect(response.headers['x-gateway-cost-usd']).toBe('0.0013894');
    expect(await row('cost-gemini')).toMatchObject({
      prompt_tokens: 4120,
      completion_tokens: 430,
      cached_tokens: 4096,
      reasoning_tokens: 412,
      cost_usd: '0.001389400000',
    });
  });

  it('a deployment without a price: no header, cost recorded as null', async () => {
    const response = await chatWithId('unpriced', 'cost-unpriced');
    expect(response.status).toBe(200);
    expect(response.headers['x-gateway-cost-usd']).toBeUndefined();
    expect(await row('cost-unpriced')).toMatchObject({ cost_usd: null, price_version: null });
  });

  it('the official client reads the header', async () => {
    openai.next(completion('hello', { prompt_tokens: 8, completion_tokens: 2 }));
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions
      .create({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    // 8 * 1.25 + 2 * 10 = 30 per million.
    expect(response.headers.get('x-gateway-cost-usd')).toBe('0.00003');
  });

  it('a completed stream records its cost from the reported usage', async () => {
    openai.next(
      streamAnswer({
        pieces: ['a', 'b'],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 50,
          completion_tokens_details: { reasoning_tokens: 40 },
        },
      }),
    );
    const response = await chatWithId('alpha-k3', 'cost-stream', { stream: true });
    expect(response.status).toBe(200);
    expect(response.headers['x-gateway-cost-usd']).toBeUndefined();
    // 100 * 1.25 + 10 * 10 + 40 * 12 = 705 per million.
    expect(await row('cost-stream')).toMatchObject({
      status: 'completed',
      reasoning_tokens: 40,
      cost_usd: '0.000705000000',
    });
  });

  it('a stream cut by the client is charged for what was streamed before the disconnect', async () => {
    const aborted = openai.waitForAbort();
    openai.next(
      streamAnswer({ pieces: ['one ', 'two ', 'three ', 'four ', 'five '], delayMs: 300 }),
    );
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create(
      { model: 'alpha-k3', messages: [{ role: 'user', content: 'x'.repeat(400) }], stream: true },
      { headers: { 'x-request-id': 'cost-cut' } },
    );
    let seen = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++seen === 2) break;
    await aborted;
    const cut = await row('cost-cut');
    expect(cut.status).toBe('aborted');
    expect(cut.completion_tokens).toBeGreaterThan(0);
    // What was streamed (estimated, as the provider sent no usage) at the deployment's price.
    const expected = costOf(
      { promptTokens: cut.prompt_tokens, completionTokens: cut.completion_tokens },
      toPrice(PRICE),
    );
    expect(expected).toBeGreaterThan(0n);
    expect(trimmed(cut.cost_usd)).toBe(formatUsd(expected));
  });

  it('a 1-token request costs exactly $0.00000015, and a million of them sum to exactly $0.15', async () => {
    openai.next(completion('', { prompt_tokens: 1, completion_tokens: 0 }));
    const response = await chatWithId('cheap', 'cost-one-token');
    expect(response.headers['x-gateway-cost-usd']).toBe('0.00000015');
    const stored = await row('cost-one-token');
    expect(stored.cost_usd).toBe('0.000000150000');
    // Postgres numeric sums the stored value a million times without rounding.
    const sum = await database.query<{ total: string }>(
      `SELECT sum(u.cost_usd)::text AS total
         FROM generate_series(1, 1000000), usage_records u
        WHERE u.key_id = $1 AND u.request_id = 'cost-one-token'`,
      [keyId],
    );
    expect(sum.rows[0].total).toBe('0.150000000000');
  });
});

function trimmed(decimal: string | null): string | null {
  return decimal === null ? null : decimal.replace(/\.?0+$/, '');
}
