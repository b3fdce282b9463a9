import { once } from 'node:events';
import type { Socket } from 'node:net';
import OpenAI, { APIError } from 'openai';
import { startTestApp, TestApp } from './support/test-app';
import {
  FakeOpenAiUpstream,
  streamAnswer,
  type UpstreamHandler,
} from './support/upstreams/openai-upstream';

// timeout_ms and first_token_timeout_ms bound one attempt, so a hung deployment is abandoned
// (its connection closed) and the next one tried with its own time; request_timeout_ms bounds
// all attempts together (docs/providers-and-routing.md, "Timeouts").

const messages = [{ role: 'user' as const, content: 'hi' }];
const HEALTHY_ANSWER = 'Hello from the fake upstream.';

/**
 * Accepts the request and never answers it (with `streamHeaders`, sends a stream's 200 and
 * headers, then nothing), keeping the socket it arrived on in `held`.
 */
function hangs(held: Socket[], streamHeaders = false): UpstreamHandler {
  return (_request, response, raw) => {
    held.push(raw.socket);
    if (!streamHeaders) return;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.flushHeaders();
  };
}

/** Resolves once the gateway has closed the connection: the hung attempt was abandoned. */
function closedByGateway(socket: Socket): Promise<unknown> {
  return socket.destroyed ? Promise.resolve() : once(socket, 'close');
}

describe('attempt and request timeouts', () => {
  let hung: FakeOpenAiUpstream;
  let healthy: FakeOpenAiUpstream;
  let gateway: TestApp;
  let client: OpenAI;
  const held: Socket[] = [];

  beforeAll(async () => {
    hung = await FakeOpenAiUpstream.start();
    healthy = await FakeOpenAiUpstream.start();
    // The hung deployment is weighted, the healthy one a standby: every request tries them in
    // that order.
    const pair = (model: string, hungSettings: Record<string, unknown>) => [
      hung.deployment('upstream-model', { name: `${model}-hung`, ...hungSettings }),
      healthy.deployment('upstream-model', { name: `${model}-healthy`, weight: 0 }),
    ];
    gateway = await startTestApp({
      // The object form of a model (deployments and model-wide settings) is what the config
      // file takes; the helper's type knows only the list form.
      models: {
        'hung-json': pair('hung-json', { timeout_ms: 2000 }),
        'hung-stream': pair('hung-stream', { first_token_timeout_ms: 1000 }),
        deadline: {
          request_timeout_ms: 1500,
          deployments: pair('deadline', { timeout_ms: 20_000 }),
        },
        'long-stream': {
          request_timeout_ms: 500,
          deployments: [healthy.deployment('upstream-model', { name: 'long-stream' })],
        },
      } as unknown as Record<string, unknown[]>,
      env: { KEY_RPM_LIMIT: '0', LOG_LEVEL: 'error' },
    });
    client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  afterEach(() => {
    hung.clearQueue();
    healthy.clearQueue();
  });

  afterAll(async () => {
    await gateway?.close();
    await hung?.close();
    await healthy?.close();
  });

  it('abandons a deployment that never answers after its timeout_ms and answers 200 from the next', async () => {
    hung.next(hangs(held));
    const started = Date.now();
    const { data, response } = await client.chat.completions
      .create({ model: 'hung-json', messages })
      .withResponse();

    expect(response.status).toBe(200);
    expect(data.choices[0].message.content).toBe(HEALTHY_ANSWER);
    expect(response.headers.get('x-gateway-deployment')).toBe('hung-json-healthy');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    // About 2 s (timeout_ms) plus a backoff; the bound only has to be generous.
    expect(Date.now() - started).toBeLessThan(10_000);
    await closedByGateway(held.at(-1)!);
  });

  it('fails a stream over when no first token comes within first_token_timeout_ms', async () => {
    hung.next(hangs(held, true));
    healthy.next(streamAnswer({ pieces: ['Hello', ' again'] }));
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'hung-stream', messages, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';

    expect(response.status).toBe(200);
    expect(text).toBe('Hello again');
    expect(response.headers.get('x-gateway-deployment')).toBe('hung-stream-healthy');
    await closedByGateway(held.at(-1)!);
  });

  it.each([false, true])(
    'answers 504 upstream_timeout once request_timeout_ms has passed, trying no further deployment (stream: %s)',
    async (stream) => {
      hung.next(hangs(held, stream));
      const before = healthy.requests.length;
      const error = (await client.chat.completions
        .create({ model: 'deadline', messages, stream })
        .catch((e: unknown) => e)) as APIError;

      expect(error).toBeInstanceOf(APIError);
      expect(error.status).toBe(504);
      expect(error.code).toBe('upstream_timeout');
      expect(error.headers?.get('x-gateway-attempts')).toBe('1');
      // The attempt's own timeout_ms (20 s) never came into it.
      expect(healthy.requests.length).toBe(before);
      await closedByGateway(held.at(-1)!);
    },
  );

  it('lets a stream run past request_timeout_ms once its first token is in', async () => {
    healthy.next(streamAnswer({ pieces: ['one', ' two', ' three', ' four'], delayMs: 250 }));
    const stream = await client.chat.completions.create({
      model: 'long-stream',
      messages,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';

    expect(text).toBe('one two three four');
  });
});
