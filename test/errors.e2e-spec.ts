import OpenAI from 'openai';
import request from 'supertest';
import { MockAdapter } from '../src/providers/mock/mock.adapter';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  hang,
} from './support/upstreams/openai-upstream';
import { startTestApp, TestApp } from './support/test-app';
import { expectEnvelope } from './support/envelope';

describe('every error answers in the envelope with the right status', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;
  const post = (body: unknown, headers: Record<string, string> = {}) => {
    let call = request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`);
    for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
    return typeof body === 'string'
      ? call.set('Content-Type', headers['Content-Type'] ?? 'application/json').send(body)
      : call.send(body as object);
  };
  const valid = { model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] };

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [upstream.deployment('m', { api_key: 'sk-upstream-secret', timeout_ms: 300 })],
        'beta-v4-pro-0813': [
          { provider: 'openai', base_url: 'http://127.0.0.1:9', api_key: 'sk-x', model: 'm' },
        ],
        'beta-v4-flash-0731': [{ provider: 'mock' }],
      },
      override: (builder) =>
        builder.overrideProvider(MockAdapter).useValue({
          provider: 'mock',
          complete: () => {
            throw new TypeError("Cannot read properties of undefined (reading 'secret internals')");
          },
          stream: () => Promise.reject(new TypeError('broken')),
        }),
    });
    key = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  it.each([
    ['a missing model', { messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['a non-string model', { model: 7, messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['missing messages', { model: 'alpha-k3' }, 'messages'],
    ['empty messages', { model: 'alpha-k3', messages: [] }, 'messages'],
    ['messages that is not an array', { model: 'alpha-k3', messages: 'hi' }, 'messages'],
    [
      'a message without role',
      { model: 'alpha-k3', messages: [{ content: 'x' }] },
      'messages[0].role',
    ],
    [
      'an unknown role',
      { model: 'alpha-k3', messages: [{ role: 'wizard', content: 'x' }] },
      'messages[0].role',
    ],
    [
      'non-string content',
      {
        model: 'alpha-k3',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 3 },
        ],
      },
      'messages[1].content',
    ],
    ['temperature out of range', { ...valid, temperature: 3 }, 'temperature'],
    ['temperature as a string', { ...valid, temperature: '0.5' }, 'temperature'],
    ['max_tokens not an integer', { ...valid, max_tokens: 1.5 }, 'max_tokens'],
    ['max_tokens zero', { ...valid, max_tokens: 0 }, 'max_tokens'],
    ['stream not a boolean', { ...valid, stream: 'yes' }, 'stream'],
    ['stop with five entries', { ...valid, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [
      'a message that is an array',
      { model: 'alpha-k3', messages: [[{ role: 'user', content: 'x' }]] },
      'messages[0]',
    ],
    [
      'a message that is a string',
      { model: 'alpha-k3', messages: [{ role: 'user', content: 'x' }, 'hi'] },
      'messages[1]',
    ],
    [
      'an unknown content part',
      { model: 'alpha-k3', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] },
      'messages[0].content[0].type',
    ],
    [
      'an image part on a system turn',
      {
        model: 'alpha-k3',
        messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'u' } }] }],
      },
      'messages[0].content[0].type',
    ],
    [
      'a text part without text',
      { model: 'alpha-k3', messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'messages[0].content[0].text',
    ],
    [
      'an empty content array',
      { model: 'alpha-k3', messages: [{ role: 'user', content: [] }] },
      'messages[0].content',
    ],
    [
      'a function turn without name',
      { model: 'alpha-k3', messages: [{ role: 'function', content: '{}' }] },
      'messages[0].name',
    ],
    [
      'a tool turn without tool_call_id',
      { model: 'alpha-k3', messages: [{ role: 'tool', content: 'r' }] },
      'messages[0].tool_call_id',
    ],
    [
      'logit_bias over 300 entries',
      { ...valid, logit_bias: Object.fromEntries(Array.from({ length: 301 }, (_, i) => [i, 1])) },
      'logit_bias',
    ],
    [
      'a logit_bias key that is no token id',
      { ...valid, logit_bias: { abc: 1 } },
      'logit_bias.abc',
    ],
    ['a tool that is no object', { ...valid, tools: ['f'] }, 'tools[0]'],
  ])('400 invalid_parameter for %s, naming the field', async (_case, body, param) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'invalid_parameter', { param });
    expect(response.body.error.type).toBe('invalid_request_error');
  });

  describe('bodies of hostile shapes are refused or dropped fast, naming the field', () => {
    const MiB = 1024 * 1024;
    const wide = (keys: number) =>
      Object.fromEntries(Array.from({ length: keys }, (_, i) => [i, 1]));
    const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    /** The valid body with `field` set to raw JSON. */
    const withRaw = (field: string, raw: string) =>
      JSON.stringify(valid).replace(/}$/, `,"${field}":${raw}}`);
    const hostile = {
      wideLogitBias: JSON.stringify({ ...valid, logit_bias: wide(90_000) }),
      deepMessages: JSON.stringify({ model: 'alpha-k3' }).replace(
        /}$/,
        `,"messages":${deep(400_000)}}`,
      ),
      wideTools: JSON.stringify({
        ...valid,
        tools: [{ type: 'function', function: { name: 'f', parameters: wide(90_000) } }],
      }),
      longMessages: JSON.stringify({
        ...valid,
        messages: Array.from({ length: 30_000 }, () => ({ role: 'user', content: 'x' })),
      }),
      deepUnknown: withRaw('x_unknown', deep(400_000)),
    };

    it.each([
      ['a 90,000-key logit_bias', hostile.wideLogitBias, 'logit_bias', 'has more than 1000 keys'],
      [
        'messages nested 400,000 levels',
        hostile.deepMessages,
        `messages${'[0]'.repeat(63)}`,
        'is nested more than 64 levels deep',
      ],
      [
        'a tool whose parameters have 90,000 keys',
        hostile.wideTools,
        'tools[0].function.parameters',
        'has more than 1000 keys',
      ],
      ['30,000 messages', hostile.longMessages, 'messages', 'has more than 10000 items'],
      [
        'an unknown field nested 400,000 levels',
        hostile.deepUnknown,
        `x_unknown${'[0]'.repeat(63)}`,
        'is nested more than 64 levels deep',
      ],
      [
        'a message nested 1,500 levels',
        JSON.stringify(valid).replace('"hi"}', `"hi","x":${deep(1500)}}`),
        `messages[0].x${'[0]'.repeat(61)}`,
        'is nested',
      ],
    ])('400 for %s', async (_case, body, param, problem) => {
      expect(Buffer.byteLength(body)).toBeLessThan(MiB);
      const response = await post(body);
      expect(response.status).toBe(400);
      expectEnvelope(response.body, 'invalid_parameter', { param });
      expect(response.body.error.message).toContain(problem);
    });

    it('drops a huge unknown field unread: 200', async () => {
      upstream.next(completion('fine'));
      const response = await post(
        JSON.stringify({ ...valid, x_unknown: wide(90_000), prediction: [wide(5000)] }),
      );
      expect(response.status).toBe(200);
      expect(Object.keys(upstream.lastRequest.body).sort()).toEqual(['messages', 'model']);
    });

    it('accepts 300 logit_bias entries and 10,000 messages', async () => {
      upstream.next(completion('fine'));
      const many = Array.from({ length: 10_000 }, () => ({ role: 'user', content: 'x' }));
      const response = await post({
        ...valid,
        messages: many,
        logit_bias: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [i, -100])),
      });
      expect(response.status).toBe(200);
      expect(upstream.lastRequest.body.messages).toHaveLength(10_000);
    });

    it('strips __proto__ and constructor keys at any depth, without overflowing the stack', async () => {
      upstream.next(completion('fine'));
      const parameters =
        '{"type":"object","__proto__":{"polluted":1},"properties":{"a":{"constructor":1,"type":"string"}}}';
      const response = await post(
        withRaw(
          'tools',
          `[{"type":"function","function":{"name":"f","parameters":${parameters}}}]`,
        ),
      );
      expect(response.status).toBe(200);
      expect(upstream.lastRequest.body.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'f',
            parameters: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
      ]);
    });

    it('answers a small request while hostile 1 MiB bodies are being read', async () => {
      const bodies = Object.values(hostile);
      const timed = async (body: string | object) => {
        const started = performance.now();
        const response = await post(body);
        return { status: response.status, ms: performance.now() - started };
      };
      const pending = [...bodies, ...bodies].map((body) => timed(body));
      upstream.next(completion('small'));
      const small = await timed(valid);
      const refused = await Promise.all(pending);
      expect(small.status).toBe(200);
      expect(refused.every((r) => r.status === 400)).toBe(true);
      // Before, one such body held the event loop for 11 s; a generous bound keeps this stable on a
      // loaded machine while still failing if any body blocks the process for seconds.
      expect(small.ms).toBeLessThan(2000);
      expect(Math.max(...refused.map((r) => r.ms))).toBeLessThan(5000);
    });
  });

  it('415 for a charset other than UTF-8', async () => {
    const response = await post(Buffer.from(JSON.stringify(valid), 'utf16le').toString('latin1'), {
      'Content-Type': 'application/json; charset=utf-16le',
    });
    expect(response.status).toBe(415);
    expectEnvelope(response.body, 'unsupported_media_type');
  });

  it('400 invalid_json for malformed JSON', async () => {
    const response = await post('{"model": "alpha-k3", "messages": [');
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'invalid_json');
  });

  it.each([['[]'], ['"text"'], ['42'], ['null']])(
    '400 invalid_body for the JSON value %s',
    async (body) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toMatch(/^invalid_(body|json)$/);
    },
  );

  it('401 when the key is missing, with the envelope the openai client reads', async () => {
    const response = await request(gateway.url).post('/v1/chat/completions').send(valid);
    expect(response.status).toBe(401);
    expectEnvelope(response.body, 'missing_api_key');
    const client = new OpenAI({
      apiKey: 'gk-not-a-real-key-but-well-formed',
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const error = await client.chat.completions.create(valid as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
  });

  it('404 for an unknown route and for an unknown model', async () => {
    const route = await request(gateway.url).get('/v1/no-such-route');
    expect(route.status).toBe(404);
    expectEnvelope(route.body, 'not_found');
    const model = await post({ ...valid, model: 'gpt-imaginary' });
    expect(model.status).toBe(404);
    expectEnvelope(model.body, 'model_not_found', { param: 'model' });
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ ...valid, model: 'gpt-imaginary' } as never),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(model.body.error.message).toBe(
      'The model `gpt-imaginary` does not exist. Available models: alpha-k3, beta-v4-pro-0813, beta-v4-flash-0731.',
    );
  });

  it('404 model_not_found lists only the models the key may use', async () => {
    const restricted = await gateway.createKey({ allowedModels: ['beta-v4-flash-0731'] });
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${restricted}`)
      .send({ ...valid, model: 'gpt-imaginary' });
    expect(response.status).toBe(404);
    expectEnvelope(response.body, 'model_not_found', { param: 'model' });
    expect(response.body.error.message).toBe(
      'The model `gpt-imaginary` does not exist. Available models: beta-v4-flash-0731.',
    );
    expect(response.body.error.message).not.toContain('alpha-k3');
  });

  it('accepts a body just under 1 MiB and answers 413 just over it', async () => {
    upstream.next(completion('ok'));
    const filler = (size: number) =>
      JSON.stringify({ ...valid, messages: [{ role: 'user', content: 'x'.repeat(size) }] });
    const overhead = filler(0).length;
    const under = await post(filler(1024 * 1024 - overhead));
    expect(under.status).toBe(200);
    const over = await post(filler(1024 * 1024 - overhead + 1));
    expect(over.status).toBe(413);
    expectEnvelope(over.body, 'request_too_large');
  });

  it.each([
    ['text/plain'],
    ['application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x'],
  ])('415 for Content-Type %s', async (type) => {
    const response = await post(JSON.stringify(valid), { 'Content-Type': type });
    expect(response.status).toBe(415);
    expectEnvelope(response.body, 'unsupported_media_type');
  });

  it('502 when the provider fails, without its raw error body', async () => {
    upstream.next(
      errorResponse(500, {
        error: { message: 'db-shard-7 exploded at 10.1.2.3', type: 'server_error' },
      }),
    );
    const response = await post(valid);
    expect(response.status).toBe(502);
    expectEnvelope(response.body, 'upstream_error');
    expect(JSON.stringify(response.body)).not.toContain('db-shard-7');
  });

  it('502 upstream_auth_failed when the provider rejects the gateway key (the client key is fine)', async () => {
    upstream.next(
      errorResponse(401, {
        error: { message: 'Incorrect API key provided: sk-upst***', code: 'invalid_api_key' },
      }),
    );
    const response = await post(valid);
    expect(response.status).toBe(502);
    expectEnvelope(response.body, 'upstream_auth_failed');
    expect(JSON.stringify(response.body)).not.toContain('sk-upst');
  });

  it('502 when the provider answers with something that is not a completion', async () => {
    upstream.next((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>gateway of the provider</html>');
    });
    const response = await post(valid);
    expect(response.status).toBe(502);
    expectEnvelope(response.body, 'upstream_error');
  });

  it('502 when the provider cannot be reached', async () => {
    const response = await post({ ...valid, model: 'beta-v4-pro-0813' });
    expect(response.status).toBe(502);
    expectEnvelope(response.body, 'upstream_error');
  });

  it('429 with the provider Retry-After when the provider rate limits', async () => {
    upstream.next(errorResponse(429, { error: { message: 'slow down' } }, { 'retry-after': '7' }));
    const response = await post(valid);
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expectEnvelope(response.body, 'upstream_rate_limited');
  });

  it('429 with a Retry-After even when the provider sent none', async () => {
    upstream.next(errorResponse(429, { error: { message: 'slow down' } }));
    const response = await post(valid);
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
  });

  it('400 for a body whose Content-Encoding does not match it, not a 500', async () => {
    const response = await post(JSON.stringify(valid), { 'Content-Encoding': 'gzip' });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'invalid_body');
  });

  it('504 when the provider does not answer in time', async () => {
    upstream.next(hang());
    const response = await post(valid);
    expect(response.status).toBe(504);
    expectEnvelope(response.body, 'upstream_timeout');
  });

  it('500 with a generic message for a bug, the detail only in the log', async () => {
    const response = await post({ ...valid, model: 'beta-v4-flash-0731' });
    expect(response.status).toBe(500);
    expectEnvelope(response.body, 'internal_error');
    expect(response.body.error.message).not.toContain('secret internals');
    expect(response.body.error.message).toContain(response.headers['x-request-id']);
  });

  it('every error carries an x-request-id', async () => {
    const responses = await Promise.all([
      request(gateway.url).get('/nope'),
      request(gateway.url).post('/v1/chat/completions').send(valid),
      post({ model: 'alpha-k3' }),
    ]);
    for (const response of responses)
      expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  });
});
