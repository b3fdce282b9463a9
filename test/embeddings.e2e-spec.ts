import Ajv2020 from 'ajv/dist/2020';
import OpenAI from 'openai';
import { Client } from 'pg';
import request from 'supertest';
import { OPENAPI_DOCUMENT } from '../src/openapi/openapi.document';
import { mockVector } from '../src/providers/embeddings/embedding-input';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { FakeGeminiUpstream, geminiEmbeddings } from './support/upstreams/gemini-upstream';
import {
  embeddingsAnswer,
  errorResponse,
  FakeOpenAiUpstream,
  hang,
} from './support/upstreams/openai-upstream';

// POST /v1/embeddings end to end: the official openai client against the gateway, the gateway
// against the mock and real HTTP servers speaking OpenAI's and Gemini's wire formats.

/** Decodes OpenAI's base64 embedding: little-endian float32. */
function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const values: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 4) values.push(bytes.readFloatLE(offset));
  return values;
}

describe('POST /v1/embeddings', () => {
  let openai: FakeOpenAiUpstream;
  let gemini: FakeGeminiUpstream;
  let gateway: TestApp;
  let database: Client;
  let key: string;
  let client: OpenAI;

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    openai = await FakeOpenAiUpstream.start();
    gemini = await FakeGeminiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [{ provider: 'mock' }],
        'embed-mock': [{ provider: 'mock', type: 'embedding', price: { input: '1' } }],
        'embed-openai': [
          openai.deployment('text-embedding-3-small', {
            api_key: 'sk-up',
            type: 'embedding',
            name: 'oa-primary',
            price: { input: '0.02' },
          }),
          openai.deployment('text-embedding-3-large', {
            api_key: 'sk-up',
            type: 'embedding',
            name: 'oa-standby',
            weight: 0,
            price: { input: '0.13', output: '5' },
          }),
        ],
        'embed-slow': [
          openai.deployment('e', {
            api_key: 'sk-up',
            type: 'embedding',
            name: 'slow',
            timeout_ms: 300,
          }),
          { provider: 'mock', type: 'embedding', name: 'mock-standby', weight: 0 },
        ],
        'embed-gemini': [
          gemini.deployment('gemini-embedding-001', {
            type: 'embedding',
            price: { input: '0.15' },
          }),
        ],
      },
      env: { USAGE_FLUSH_INTERVAL_MS: '50' },
    });
    key = await gateway.createKey();
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  afterEach(() => {
    openai.clearQueue();
    gemini.clearQueue();
  });

  afterAll(async () => {
    await gateway?.close();
    await openai?.close();
    await gemini?.close();
    await database?.end();
  });

  describe('on the mock', () => {
    it('answers deterministic unit vectors as floats, in input order', async () => {
      const inputs = ['first text', 'second, longer text', 'third'];
      const { data, response } = await client.embeddings
        .create({ model: 'embed-mock', input: inputs, encoding_format: 'float' })
        .withResponse();
      expect(data.object).toBe('list');
      expect(data.model).toBe('embed-mock');
      expect(data.data.map((item) => item.index)).toEqual([0, 1, 2]);
      data.data.forEach((item, index) => {
        expect(item.object).toBe('embedding');
        expect(item.embedding).toEqual(mockVector(inputs[index]));
      });
      const norm = Math.hypot(...data.data[0].embedding);
      expect(norm).toBeCloseTo(1, 10);
      // 10, 19 and 5 characters: 3 + 5 + 2 tokens at $1 per million.
      expect(data.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 });
      expect(response.headers.get('x-gateway-cost-usd')).toBe('0.00001');
    });

    it('answers base64 as little-endian float32, and the client decodes it by default', async () => {
      const raw = await client.embeddings.create({
        model: 'embed-mock',
        input: 'hello',
        encoding_format: 'base64',
      });
      const expected = mockVector('hello').map((x) => Math.fround(x));
      expect(decodeFloat32(raw.data[0].embedding as unknown as string)).toEqual(expected);
      // Without encoding_format the openai client asks for base64 and decodes it itself.
      const decoded = await client.embeddings.create({ model: 'embed-mock', input: 'hello' });
      expect(decoded.data[0].embedding).toEqual(expected);
    });

    it('honours dimensions and embeds token arrays', async () => {
      const answer = await client.embeddings.create({
        model: 'embed-mock',
        input: [
          [1, 2, 3],
          [4, 5],
        ],
        dimensions: 32,
        encoding_format: 'float',
      });
      expect(answer.data[0].embedding).toEqual(mockVector([1, 2, 3], 32));
      expect(answer.data[1].embedding).toHaveLength(32);
      expect(answer.usage.prompt_tokens).toBe(5);
      const single = await client.embeddings.create({
        model: 'embed-mock',
        input: [7, 8, 9],
        encoding_format: 'float',
      });
      expect(single.data).toHaveLength(1);
      expect(single.data[0].embedding).toEqual(mockVector([7, 8, 9]));
    });

    it('records usage with the input tokens and the cost', async () => {
      const { id, secret } = await gateway.createKeyWithId();
      await request(gateway.url)
        .post('/v1/embeddings')
        .auth(secret, { type: 'bearer' })
        .send({ model: 'embed-mock', input: ['abcdefgh', 'abcd'] })
        .expect(200);
      await eventually(async () => {
        const { rows } = await database.query(
          `SELECT endpoint, public_model, status, prompt_tokens, completion_tokens, cost_usd::text AS cost
             FROM usage_records WHERE key_id = $1`,
          [id],
        );
        expect(rows).toEqual([
          expect.objectContaining({
            endpoint: 'embeddings',
            public_model: 'embed-mock',
            status: 'completed',
            prompt_tokens: 3,
            completion_tokens: 0,
          }),
        ]);
        expect(Number(rows[0].cost)).toBeCloseTo(0.000003, 12);
      }, 5000);
    });
  });

  it('answers as the OpenAPI document describes, floats and base64', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: { schemas: OPENAPI_DOCUMENT.components.schemas } });
    const validate = (name: string, value: unknown) =>
      ajv.getSchema(`doc#/components/schemas/${name}`)!(value);
    for (const encoding_format of ['float', 'base64'] as const) {
      const body = { model: 'embed-mock', input: ['a', 'b'], dimensions: 4, encoding_format };
      expect(validate('EmbeddingRequest', body)).toBe(true);
      const response = await request(gateway.url)
        .post('/v1/embeddings')
        .auth(key, { type: 'bearer' })
        .send(body)
        .expect(200);
      expect(validate('EmbeddingList', response.body)).toBe(true);
    }
    expect(validate('EmbeddingRequest', { model: 'embed-mock', input: [] })).toBe(false);
  });

  describe('refusals', () => {
    const post = (body: unknown) =>
      request(gateway.url)
        .post('/v1/embeddings')
        .auth(key, { type: 'bearer' })
        .send(body as object);

    it.each([
      ['an empty string', ''],
      ['an empty array', []],
      ['an empty string in a batch', ['a', '']],
      ['an empty token array', [[1], []]],
      ['mixed items', ['a', [1]]],
      ['negative token ids', [1, -2]],
      ['more than 2,048 inputs', new Array(2049).fill('x')],
      ['no input', undefined],
    ])('%s is a 400 naming input', async (_name, input) => {
      const response = await post({ model: 'embed-mock', input }).expect(400);
      expect(response.body.error.code).toBe('invalid_parameter');
      expect(response.body.error.param).toMatch(/^input/);
    });

    it('takes exactly 2,048 inputs', async () => {
      const response = await post({ model: 'embed-mock', input: new Array(2048).fill('x') });
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(2048);
    });

    it.each([
      ['dimensions', { dimensions: 0 }],
      ['encoding_format', { encoding_format: 'int8' }],
      ['user', { user: 'u'.repeat(257) }],
    ])('a bad %s is a 400 naming it', async (param, extra) => {
      const response = await post({ model: 'embed-mock', input: 'x', ...extra }).expect(400);
      expect(response.body.error.param).toBe(param);
    });

    it('a chat model on /v1/embeddings, or the reverse, is model_not_supported naming the endpoint', async () => {
      const wrongWay = await post({ model: 'alpha-k3', input: 'x' }).expect(400);
      expect(wrongWay.body.error.code).toBe('model_not_supported');
      expect(wrongWay.body.error.message).toContain('/v1/chat/completions');
      const reverse = await request(gateway.url)
        .post('/v1/chat/completions')
        .auth(key, { type: 'bearer' })
        .send({ model: 'embed-mock', messages: [{ role: 'user', content: 'hi' }] })
        .expect(400);
      expect(reverse.body.error.code).toBe('model_not_supported');
      expect(reverse.body.error.message).toContain('/v1/embeddings');
    });

    it('needs a key, and honours its allow-list', async () => {
      await request(gateway.url)
        .post('/v1/embeddings')
        .send({ model: 'embed-mock', input: 'x' })
        .expect(401);
      const narrow = await gateway.createKey({ allowedModels: ['alpha-k3'] });
      const response = await request(gateway.url)
        .post('/v1/embeddings')
        .auth(narrow, { type: 'bearer' })
        .send({ model: 'embed-mock', input: 'x' })
        .expect(403);
      expect(response.body.error.code).toBe('model_not_allowed');
    });

    it('lists embedding models in /v1/models', async () => {
      const ids = [];
      for await (const model of client.models.list()) ids.push(model.id);
      expect(ids).toEqual(expect.arrayContaining(['embed-mock', 'embed-openai', 'embed-gemini']));
    });
  });

  describe('limits and budgets', () => {
    it('counts the input tokens against the key TPM before the call', async () => {
      const limited = await gateway.createKey({ tpmLimit: 20 });
      const call = (input: string) =>
        request(gateway.url)
          .post('/v1/embeddings')
          .auth(limited, { type: 'bearer' })
          .send({ model: 'embed-mock', input });
      await call('x'.repeat(60)).expect(200); // 15 tokens
      const refused = await call('x'.repeat(40)).expect(429); // 10 more: over 20
      expect(refused.body.error.code).toBe('token_rate_limit_exceeded');
    });

    it('holds the input cost against a dollar budget', async () => {
      // $1 per million: a budget of $0.00002 is 20 tokens.
      const limited = await gateway.createKey({ budgetUsd: '0.00002', budgetPeriod: 'total' });
      const call = (input: string) =>
        request(gateway.url)
          .post('/v1/embeddings')
          .auth(limited, { type: 'bearer' })
          .send({ model: 'embed-mock', input });
      const first = await call('x'.repeat(60)).expect(200);
      expect(first.headers['x-gateway-cost-usd']).toBe('0.000015');
      const refused = await call('x'.repeat(40)).expect(429);
      expect(refused.body.error.code).toBe('spend_budget_exceeded');
    });
  });

  describe('on an OpenAI deployment', () => {
    it('passes the request on and charges the provider-reported tokens', async () => {
      openai.next(embeddingsAnswer(7));
      const { data, response } = await client.embeddings
        .create({
          model: 'embed-openai',
          input: ['one', 'three'],
          dimensions: 3,
          user: 'end-user-1',
          encoding_format: 'float',
        })
        .withResponse();
      expect(openai.lastRequest.path).toBe('/v1/embeddings');
      expect(openai.lastRequest.headers.authorization).toBe('Bearer sk-up');
      expect(openai.lastRequest.body).toEqual({
        model: 'text-embedding-3-small',
        input: ['one', 'three'],
        encoding_format: 'float',
        dimensions: 3,
        user: 'end-user-1',
      });
      expect(data.data.map((item) => item.embedding)).toEqual([
        [0, 3, 0.5],
        [1, 5, 0.5],
      ]);
      expect(data.usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
      // 7 tokens at $0.02 per million.
      expect(response.headers.get('x-gateway-cost-usd')).toBe('0.00000014');
    });

    it('fails over to the standby before answering, and encodes base64 itself', async () => {
      openai.next(errorResponse(503, { error: { message: 'overloaded', type: 'server_error' } }));
      openai.next(embeddingsAnswer(4));
      const { data, response } = await client.embeddings
        .create({ model: 'embed-openai', input: [5, 6], encoding_format: 'base64' })
        .withResponse();
      expect(response.headers.get('x-gateway-attempts')).toBe('2');
      expect(response.headers.get('x-gateway-deployment')).toBe('oa-standby');
      expect(openai.lastRequest.body.model).toBe('text-embedding-3-large');
      expect(openai.lastRequest.body.input).toEqual([5, 6]);
      expect(decodeFloat32(data.data[0].embedding as unknown as string)).toEqual([0, 2, 0.5]);
    });

    it('abandons an attempt past timeout_ms and fails over, closing the upstream request', async () => {
      openai.next(hang());
      const aborted = openai.waitForAbort();
      const { data, response } = await client.embeddings
        .create({ model: 'embed-slow', input: 'late', encoding_format: 'float' })
        .withResponse();
      await aborted;
      expect(response.headers.get('x-gateway-deployment')).toBe('mock-standby');
      expect(response.headers.get('x-gateway-attempts')).toBe('2');
      expect(data.data[0].embedding).toEqual(mockVector('late'));
    });

    it('answers a provider 400 as upstream_bad_request, not a retry', async () => {
      openai.next(
        errorResponse(400, { error: { message: 'bad dims', type: 'invalid_request_error' } }),
      );
      const response = await request(gateway.url)
        .post('/v1/embeddings')
        .auth(key, { type: 'bearer' })
        .send({ model: 'embed-openai', input: 'x' })
        .expect(400);
      expect(response.body.error.code).toBe('upstream_bad_request');
      expect(response.headers['x-gateway-attempts']).toBe('1');
    });
  });

  describe('on a Gemini deployment', () => {
    it('sends batchEmbedContents in calls of at most 100, with outputDimensionality', async () => {
      const inputs = Array.from({ length: 150 }, (_, i) => 'x'.repeat(i + 1));
      const before = gemini.requests.length;
      gemini.next(geminiEmbeddings(), geminiEmbeddings());
      const { data, response } = await client.embeddings
        .create({ model: 'embed-gemini', input: inputs, dimensions: 4, encoding_format: 'float' })
        .withResponse();
      const calls = gemini.requests.slice(before);
      expect(calls.map((call) => call.path)).toEqual([
        '/v1beta/models/gemini-embedding-001:batchEmbedContents',
        '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      ]);
      expect(calls.map((call) => call.body.requests.length)).toEqual([100, 50]);
      expect(calls[0].body.requests[0]).toEqual({
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text: 'x' }] },
        outputDimensionality: 4,
      });
      expect(data.data).toHaveLength(150);
      expect(data.data[120].embedding).toEqual([121, 20, 0, 0]);
      // Gemini reports no tokens: the gateway's count (4 characters a token) is charged.
      const expectedTokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
      expect(data.usage.prompt_tokens).toBe(expectedTokens);
      expect(Number(response.headers.get('x-gateway-cost-usd'))).toBeCloseTo(
        (expectedTokens * 0.15) / 1e6,
        12,
      );
    });

    it('refuses token arrays with a 400 naming input, before any call', async () => {
      const before = gemini.requests.length;
      const response = await request(gateway.url)
        .post('/v1/embeddings')
        .auth(key, { type: 'bearer' })
        .send({ model: 'embed-gemini', input: [[1, 2]] })
        .expect(400);
      expect(response.body.error.param).toBe('input');
      expect(gemini.requests.length).toBe(before);
    });
  });
});
