import OpenAI from 'openai';
import request from 'supertest';
import { SseInterceptor } from '../src/common/sse/sse.interceptor';
import { startTestApp, TestApp } from './support/test-app';

// One path, two handlers chosen by the body's `stream` (src/formats/response-mode.ts): only
// a stream may pay for the SSE interceptor, and both must answer and refuse as one handler did.
describe('POST /v1/chat/completions: the JSON and the streaming handler', () => {
  let gateway: TestApp;
  let key: string;
  let intercepted: jest.SpyInstance;
  const messages = [{ role: 'user' as const, content: 'Say hello.' }];

  beforeAll(async () => {
    gateway = await startTestApp({
      models: { 'beta-v4-flash-0731': [{ provider: 'mock', chunk_count: 3, chunk_delay_ms: 1 }] },
    });
    key = await gateway.createKey();
    intercepted = jest.spyOn(SseInterceptor.prototype, 'intercept');
  });

  afterAll(async () => {
    intercepted.mockRestore();
    await gateway.close();
  });

  beforeEach(() => intercepted.mockClear());

  const post = (body: unknown) =>
    request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);

  it.each([
    ['no stream field', {}],
    ['stream: false', { stream: false }],
  ])('answers JSON for %s, without the SSE interceptor', async (_case, extra) => {
    const response = await post({ model: 'beta-v4-flash-0731', messages, ...extra });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.object).toBe('chat.completion');
    expect(intercepted).not.toHaveBeenCalled();
  });

  it('streams for stream: true, through the SSE interceptor', async () => {
    const response = await post({ model: 'beta-v4-flash-0731', messages, stream: true });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(intercepted).toHaveBeenCalledTimes(1);
  });

  it.each([
    [
      'a stream that is not a boolean',
      { model: 'beta-v4-flash-0731', messages, stream: 'true' },
      'stream',
    ],
    ['a stream without messages', { model: 'beta-v4-flash-0731', stream: true }, 'messages'],
  ])('refuses %s in the envelope, 400', async (_case, body, param) => {
    const response = await post(body);

    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('serves the official client in both modes', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'beta-v4-flash-0731', messages });
    expect(answer.choices[0].message.role).toBe('assistant');

    let chunks = 0;
    const stream = await client.chat.completions.create({
      model: 'beta-v4-flash-0731',
      messages,
      stream: true,
    });
    for await (const chunk of stream) if (chunk.object === 'chat.completion.chunk') chunks++;
    expect(chunks).toBeGreaterThan(0);
  });
});
