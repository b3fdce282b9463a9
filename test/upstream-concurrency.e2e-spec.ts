import { Agent } from 'node:http';
import OpenAI, { APIError } from 'openai';
import { performance } from 'node:perf_hooks';
import { postStream } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';
import {
  completion,
  FakeOpenAiUpstream,
  hang,
  streamAnswer,
  UpstreamHandler,
} from './support/upstreams/openai-upstream';
import { waitUntil } from './support/eventually';

// A deployment takes as many concurrent requests as arrive (no hidden pool queue), or, with
// max_concurrency, a bounded and visible wait followed by a 503.

const question = [{ role: 'user', content: 'hi' }];
const STREAMS = 1_000;

describe('concurrent requests to one deployment', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    const openai = upstream.deployment('m');
    gateway = await startTestApp({
      models: {
        'alpha-k3': [openai],
        'alpha-limited': [{ ...openai, max_concurrency: 2, max_queue_ms: 300 }],
        'alpha-queued-deadline': [
          { ...openai, max_concurrency: 1, max_queue_ms: 10_000, timeout_ms: 500 },
        ],
      },
      env: { KEY_RPM_LIMIT: '0', LOG_LEVEL: 'warn' },
    });
    key = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it(`holds ${STREAMS} concurrent streams open to a slow upstream and answers all of them`, async () => {
    // The upstream answers nothing until all streams have reached it: behind a pool of 256
    // connections the rest would wait invisibly and this barrier would never open.
    let arrived = 0;
    let openBarrier!: () => void;
    const barrier = new Promise<void>((resolve) => (openBarrier = resolve));
    const slowStream: UpstreamHandler = async (request, response, raw) => {
      if (++arrived === STREAMS) openBarrier();
      let fallback: NodeJS.Timeout | undefined;
      await Promise.race([
        barrier,
        new Promise((resolve) => (fallback = setTimeout(resolve, 20_000))),
      ]);
      clearTimeout(fallback);
      await streamAnswer({ pieces: ['slow ', 'but ', 'there'], delayMs: 200 })(
        request,
        response,
        raw,
      );
    };
    upstream.next(...Array.from({ length: STREAMS }, () => slowStream));

    const agent = new Agent({ keepAlive: true, maxSockets: STREAMS + 10 });
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: STREAMS }, () =>
        streamThrough(gateway.url, key, agent, {
          model: 'alpha-k3',
          messages: question,
          stream: true,
        }),
      ),
    );
    const elapsed = performance.now() - started;
    agent.destroy();

    expect(arrived).toBe(STREAMS);
    expect(
      results.filter((r) => r.status === 200 && r.body.endsWith('data: [DONE]\n\n')),
    ).toHaveLength(STREAMS);
    const ttfb = results.map((r) => r.firstByteMs).sort((a, b) => a - b);
    console.log(
      `${STREAMS} streams: all answered in ${Math.round(elapsed)} ms, median time to first byte ${Math.round(ttfb[STREAMS >> 1])} ms`,
    );
    expect(elapsed).toBeLessThan(20_000);
  }, 60_000);

  it('refuses a request beyond max_concurrency after max_queue_ms: 503 gateway_overloaded with Retry-After', async () => {
    const base = upstream.requests.length;
    upstream.next(hang(), hang());
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const held = [1, 2].map(() => {
      const controller = new AbortController();
      const call = client.chat.completions.create(
        { model: 'alpha-limited', messages: question as never },
        { signal: controller.signal },
      );
      call.catch(() => undefined);
      return controller;
    });
    let error: unknown;
    let waited: number;
    try {
      await waitUntil(() => upstream.requests.length >= base + 2);
      const started = Date.now();
      error = await client.chat.completions
        .create({ model: 'alpha-limited', messages: question as never })
        .catch((e: unknown) => e);
      waited = Date.now() - started;
    } finally {
      held.forEach((controller) => controller.abort());
    }
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('gateway_overloaded');
    expect(apiError.type).toBe('server_error');
    expect(apiError.headers?.get('retry-after')).toBe('1');
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(3_000);
    // The refused request never reached the provider.
    expect(upstream.requests.length).toBe(base + 2);
  });

  it('gives a queued request the slot that frees up within max_queue_ms', async () => {
    const base = upstream.requests.length;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const delayed: UpstreamHandler = async (request, response, raw) => {
      await gate;
      await completion('ok')(request, response, raw);
    };
    upstream.next(delayed, delayed);
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const first = [1, 2].map(() =>
      client.chat.completions.create({ model: 'alpha-limited', messages: question as never }),
    );
    await waitUntil(() => upstream.requests.length >= base + 2);
    const queued = client.chat.completions.create({
      model: 'alpha-limited',
      messages: question as never,
    });
    setTimeout(release, 100);
    const answers = await Promise.all([...first, queued]);
    expect(answers.map((a) => a.choices[0].message.content)).toEqual([
      'ok',
      'ok',
      'Hello from the fake upstream.',
    ]);
  });

  it('counts time spent queueing against timeout_ms: 504 after timeout_ms, not after max_queue_ms', async () => {
    // timeout_ms 500 and a provider that never answers: the holder itself times out at 500 ms,
    // and the queued stream, waiting for its slot meanwhile, must not get a fresh 500 ms after.
    const base = upstream.requests.length;
    upstream.next(hang(), hang());
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const holder = client.chat.completions
      .create({ model: 'alpha-queued-deadline', messages: question as never })
      .catch((e: unknown) => e);
    await waitUntil(() => upstream.requests.length >= base + 1);
    const started = Date.now();
    const error = (await client.chat.completions
      .create({ model: 'alpha-queued-deadline', messages: question as never, stream: true })
      .catch((e: unknown) => e)) as APIError;
    const waited = Date.now() - started;
    expect(((await holder) as APIError).status).toBe(504);
    expect(error.status).toBe(504);
    expect(error.code).toBe('upstream_timeout');
    expect(waited).toBeLessThan(700);
  });
});

interface StreamResult {
  status: number;
  body: string;
  firstByteMs: number;
}

/** One stream through its own client `agent`: its status, its whole body, and when its headers came. */
async function streamThrough(
  baseUrl: string,
  key: string,
  agent: Agent,
  body: unknown,
): Promise<StreamResult> {
  const started = performance.now();
  const stream = await postStream(baseUrl, key, body, { agent });
  const firstByteMs = performance.now() - started;
  await stream.ended;
  return { status: stream.status, body: stream.bytes().toString('utf8'), firstByteMs };
}
