import Anthropic from '@anthropic-ai/sdk';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';
import { sleep } from './support/upstreams/scripted-upstream';
import { MetricsService } from '../src/metrics/metrics.service';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  streamAnswer,
  type UpstreamHandler,
} from './support/upstreams/openai-upstream';

// Errors, limits and model discovery on the Anthropic endpoints, as the official SDK sees them:
// every error in Anthropic's envelope with the status its error classes are chosen by.

const HI = [{ role: 'user' as const, content: 'Hi' }];

/** An answer that takes `ms`, to hold a deployment's only concurrency slot. */
const slow =
  (ms: number): UpstreamHandler =>
  async (request, response) => {
    await sleep(ms);
    await completion('slow')(request, response);
  };

describe('/v1/messages errors, limits and models', () => {
  let openai: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;
  let client: Anthropic;

  const anthropicFor = (apiKey: string, options: Partial<Anthropic['_options']> = {}) =>
    new Anthropic(Object.assign({ apiKey, baseURL: gateway.url, maxRetries: 0 }, options));
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: Object.assign({ 'content-type': 'application/json', 'x-api-key': key }, headers),
      body,
    });

  beforeAll(async () => {
    openai = await FakeOpenAiUpstream.start();
    const openaiDeployment = openai.deployment('gpt-up');
    gateway = await startTestApp({
      models: {
        'gpt-translated': [openaiDeployment],
        'gpt-narrow': [Object.assign({ max_concurrency: 1, max_queue_ms: 0 }, openaiDeployment)],
        'mock-model': [{ provider: 'mock' }],
      },
      aliases: { 'claude-sonnet-5': 'gpt-translated', 'claude-haiku-*': 'mock-model' },
      env: { SSE_HEARTBEAT_MS: '50' },
    });
    key = await gateway.createKey();
    client = anthropicFor(key);
  });

  afterAll(async () => {
    await gateway.close();
    await openai.close();
  });

  afterEach(() => openai.clearQueue());

  it('answers a bad key with AuthenticationError, a missing one naming both headers', async () => {
    const error = await anthropicFor('gk-not-a-real-key-000000000000')
      .messages.create({ model: 'mock-model', max_tokens: 5, messages: HI })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as Anthropic.APIError).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Incorrect API key provided.' },
      request_id: expect.any(String),
    });
    const missing = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-model', max_tokens: 5, messages: HI }),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('request-id')).toBe(missing.headers.get('x-request-id'));
    expect((await missing.json()).error).toEqual({
      type: 'authentication_error',
      message:
        'No API key provided. Send it as "x-api-key: <key>" or "Authorization: Bearer <key>".',
    });
  });

  it('answers an unknown model 404 and one outside the allow-list 403', async () => {
    await expect(
      client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: HI }),
    ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const narrow = anthropicFor(await gateway.createKey({ allowedModels: ['mock-model'] }));
    const error = await narrow.messages
      .create({ model: 'claude-sonnet-5', max_tokens: 5, messages: HI })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((error as Anthropic.APIError).error).toEqual(
      expect.objectContaining({ error: expect.objectContaining({ type: 'permission_error' }) }),
    );
  });

  it.each([
    [
      'no max_tokens',
      JSON.stringify({ model: 'mock-model', messages: HI }),
      'max_tokens: Field required',
    ],
    [
      'a bad role',
      JSON.stringify({
        model: 'mock-model',
        max_tokens: 5,
        messages: [{ role: 'bot', content: 'x' }],
      }),
      "messages.0.role: Input should be 'user', 'assistant', 'system'",
    ],
    [
      'invalid JSON',
      '{"model": ',
      'The request body is not valid JSON: Unexpected end of JSON input',
    ],
    ['an array body', '[]', 'The request body must be a JSON object.'],
  ])('answers %s with 400 invalid_request_error', async (_case, body, message) => {
    const response = await post('/v1/messages', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message },
      request_id: response.headers.get('x-request-id'),
    });
  });

  it('answers a provider failure before the first event 502 api_error', async () => {
    openai.next(errorResponse(500, { error: { message: 'boom', type: 'server_error' } }));
    const error = await client.messages
      .create({ model: 'gpt-translated', max_tokens: 5, messages: HI })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Anthropic.APIError).status).toBe(502);
    expect((error as Anthropic.APIError).error).toEqual(
      expect.objectContaining({ error: expect.objectContaining({ type: 'api_error' }) }),
    );
  });

  it('pings while the upstream is silent, and counts the request under its endpoint', async () => {
    openai.next(streamAnswer({ pieces: ['one', ' two'], delayMs: 300 }));
    const response = await post(
      '/v1/messages',
      JSON.stringify({ model: 'gpt-translated', max_tokens: 8, stream: true, messages: HI }),
    );
    const text = await response.text();
    expect(text).toContain('event: ping\ndata: {"type": "ping"}\n\n');
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    const metrics = await gateway.app.get(MetricsService).registry.metrics();
    expect(metrics).toMatch(
      /gateway_requests_total\{model="gpt-translated",deployment="[^"]+",status="200",endpoint="messages"\} \d+/,
    );
  });

  it('answers a body over 1 MiB with 413 request_too_large, and an unknown route 404', async () => {
    const big = JSON.stringify({
      model: 'mock-model',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
    });
    const tooLarge = await post('/v1/messages', big);
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).error.type).toBe('request_too_large');
    const unknown = await post('/v1/messages/batches', '{}');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.type).toBe('not_found_error');
  });

  it("retries a RateLimitError after the upstream's retry-after, as the SDK does", async () => {
    openai.next(
      errorResponse(
        429,
        { error: { message: 'slow down', type: 'requests' } },
        { 'retry-after': '1' },
      ),
      completion('After the pause.'),
    );
    const started = Date.now();
    const message = await anthropicFor(key, { maxRetries: 1 }).messages.create({
      model: 'gpt-translated',
      max_tokens: 8,
      messages: HI,
    });
    expect(message.content).toEqual([{ type: 'text', text: 'After the pause.' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    openai.next(errorResponse(429, { error: { message: 'slow down' } }, { 'retry-after': '7' }));
    const error = await client.messages
      .create({ model: 'gpt-translated', max_tokens: 8, messages: HI })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as Anthropic.APIError).headers?.get('retry-after')).toBe('7');
  });

  it('tells the SDK not to retry a spent budget, and counts tokens for it all the same', async () => {
    const spent = await gateway.createKey({ tokenBudget: 10, budgetPeriod: 'day' });
    let calls = 0;
    const counting = anthropicFor(spent, {
      maxRetries: 2,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        calls++;
        return fetch(input, init);
      },
    });
    const error = await counting.messages
      .create({ model: 'mock-model', max_tokens: 64, messages: HI })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as Anthropic.APIError).headers?.get('x-should-retry')).toBe('false');
    expect(calls).toBe(1);
    const counted = await counting.messages.countTokens({ model: 'mock-model', messages: HI });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it("counts count_tokens toward the key's request rate, for allowed models only", async () => {
    const narrow = anthropicFor(await gateway.createKey({ allowedModels: ['mock-model'] }));
    await expect(
      narrow.messages.countTokens({ model: 'gpt-translated', messages: HI }),
    ).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    const limited = anthropicFor(await gateway.createKey({ rpmLimit: 2 }));
    await limited.messages.countTokens({ model: 'mock-model', messages: HI });
    await limited.messages.countTokens({ model: 'claude-haiku-4-5', messages: HI });
    await expect(
      limited.messages.create({ model: 'mock-model', max_tokens: 5, messages: HI }),
    ).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('answers 529 overloaded_error when the deployment has no free slot', async () => {
    openai.next(slow(400), completion('second'));
    const first = client.messages.create({ model: 'gpt-narrow', max_tokens: 5, messages: HI });
    await sleep(100);
    const error = await client.messages
      .create({ model: 'gpt-narrow', max_tokens: 5, messages: HI })
      .catch((caught: unknown) => caught);
    expect((error as Anthropic.APIError).status).toBe(529);
    expect((error as Anthropic.APIError).error).toEqual(
      expect.objectContaining({ error: expect.objectContaining({ type: 'overloaded_error' }) }),
    );
    expect((await first).content).toEqual([{ type: 'text', text: 'slow' }]);
  });

  it("lists the key's models and exact aliases in Anthropic's shape for an Anthropic client", async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual([
      'gpt-translated',
      'gpt-narrow',
      'mock-model',
      'claude-sonnet-5',
    ]);
    const raw = await fetch(`${gateway.url}/v1/models`, {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    });
    const body = await raw.json();
    expect(body).toEqual({
      data: expect.any(Array),
      has_more: false,
      first_id: 'gpt-translated',
      last_id: 'claude-sonnet-5',
    });
    expect(body.data[3]).toEqual({
      type: 'model',
      id: 'claude-sonnet-5',
      display_name: 'claude-sonnet-5',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await client.models.retrieve('claude-sonnet-5')).id).toBe('claude-sonnet-5');
    await expect(client.models.retrieve('claude-haiku-4-5')).rejects.toBeInstanceOf(
      Anthropic.NotFoundError,
    );
    // An OpenAI client gets OpenAI's shape, as before.
    const openAiShape = await request(gateway.url)
      .get('/v1/models')
      .set('Authorization', `Bearer ${key}`);
    expect(openAiShape.body).toEqual({ object: 'list', data: expect.any(Array) });
    expect(openAiShape.body.data.map((model: { id: string }) => model.id)).toEqual([
      'gpt-translated',
      'gpt-narrow',
      'mock-model',
    ]);
  });
});
