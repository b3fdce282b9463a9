import OpenAI, { APIError } from 'openai';
import type { CompletionOutcome } from '../src/usage/completion-outcome';
import { UsageRecorder } from '../src/usage/usage-recorder.service';
import { estimateTokens } from '../src/common/tokens/token-estimate';
import { dataPayloads, postStream, RawStream, sseEvents, streamToEnd } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';
import {
  deltaFrame,
  errorResponse,
  FakeOpenAiUpstream,
  floodAnswer,
  type FloodProgress,
  hang,
  sleep,
  streamAnswer,
  UpstreamHandler,
} from './support/upstreams/openai-upstream';
import { closedPort } from './support/ports';
import { waitUntil } from './support/eventually';
import { expectEnvelope } from './support/envelope';

const HEARTBEAT_MS = 50;
const question = [{ role: 'user' as const, content: 'Say hello.' }];

describe('POST /v1/chat/completions with stream: true', () => {
  let upstream: FakeOpenAiUpstream;
  let backup: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;
  let client: OpenAI;
  let recordSpy: jest.SpyInstance<void, [CompletionOutcome]>;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    backup = await FakeOpenAiUpstream.start();
    const openai = (extra: Record<string, unknown> = {}) =>
      upstream.deployment('gpt-upstream-1', { api_key: 'sk-upstream-secret', ...extra });
    gateway = await startTestApp({
      env: { SSE_HEARTBEAT_MS: String(HEARTBEAT_MS) },
      models: {
        'alpha-k3': [openai()],
        'alpha-quick-timeout': [openai({ timeout_ms: 300 })],
        'alpha-refused': [openai({ base_url: `http://127.0.0.1:${await closedPort()}/v1` })],
        'beta-v4-pro-0813': [
          openai({ name: 'primary' }),
          backup.deployment('backup-model', { api_key: 'sk-backup', name: 'backup', weight: 0 }),
        ],
        'beta-v4-flash-0731': [{ provider: 'mock', chunk_count: 4, chunk_delay_ms: 5 }],
        'mock-slow': [{ provider: 'mock', chunk_count: 4, chunk_delay_ms: 60_000 }],
      },
    });
    key = await gateway.createKey();
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    recordSpy = jest.spyOn(gateway.app.get(UsageRecorder), 'record');
  });

  afterAll(async () => {
    recordSpy.mockRestore();
    await gateway.close();
    await upstream.close();
    await backup.close();
  });

  /** The outcome recorded for one request, as the usage recorder receives it. */
  async function outcomeOf(requestId: string): Promise<CompletionOutcome> {
    const recorded = () =>
      recordSpy.mock.calls.find(([outcome]) => outcome.requestId === requestId)?.[0];
    await waitUntil(() => recorded() !== undefined);
    return recorded()!;
  }

  describe('wire format', () => {
    it('streams to the official openai client, and always asks the upstream for usage', async () => {
      upstream.next(streamAnswer({ pieces: ['Hello', ', ', 'world', '!'] }));
      const stream = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);

      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
        'Hello, world!',
      );
      expect(
        chunks.every(
          (chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'alpha-k3',
        ),
      ).toBe(true);
      expect(chunks.every((chunk) => chunk.choices.length === 1 && !chunk.usage)).toBe(true);
      expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
      // The client did not ask for usage; the gateway did anyway, to know what the stream cost.
      expect(upstream.lastRequest.body).toMatchObject({
        model: 'gpt-upstream-1',
        stream: true,
        stream_options: { include_usage: true },
      });
    });

    it('adds one usage chunk with choices [] just before [DONE] when include_usage is set', async () => {
      upstream.next(
        streamAnswer({
          pieces: ['a', 'b', 'c'],
          usage: { prompt_tokens: 11, completion_tokens: 3 },
        }),
      );
      const stream = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: question,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);

      const last = chunks[chunks.length - 1];
      expect(last.choices).toEqual([]);
      expect(last.usage).toEqual({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
      expect(chunks.slice(0, -1).every((chunk) => chunk.choices.length === 1 && !chunk.usage)).toBe(
        true,
      );
      expect(upstream.lastRequest.body.stream_options).toEqual({ include_usage: true });
    });

    it('writes exactly `data: <json>` events and ends with data: [DONE], with no id: or event: lines', async () => {
      upstream.next(streamAnswer({ pieces: ['Par', 'is', '.'] }));
      const before = Math.floor(Date.now() / 1000);
      const { stream, text: body } = await streamToEnd(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
        stream_options: { include_usage: true },
      });

      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.headers['cache-control']).toBe('no-cache');
      expect(stream.headers['x-accel-buffering']).toBe('no');
      expect(stream.headers['content-encoding']).toBeUndefined();

      const lines = body.split('\n');
      expect(
        lines
          .filter((line) => line !== '')
          .every((line) => line.startsWith('data: ') || line.startsWith(':')),
      ).toBe(true);
      expect(lines.some((line) => /^(id|event|retry):/.test(line))).toBe(false);
      expect(body.startsWith('data: {')).toBe(true);
      expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
      const events = sseEvents(body).filter((event) => !event.startsWith(':'));
      expect(events.every((event) => !event.includes('\n'))).toBe(true);
      expect(events.filter((event) => event === 'data: [DONE]')).toHaveLength(1);

      const chunks = dataPayloads(body);
      const ids = new Set(chunks.map((chunk) => chunk.id));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toMatch(/^chatcmpl_[0-9a-f]{24}$/);
      expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
      expect(chunks[0].created).toBeGreaterThanOrEqual(before);
      expect(chunks[0].created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(
        chunks.every(
          (chunk) => chunk.model === 'alpha-k3' && chunk.object === 'chat.completion.chunk',
        ),
      ).toBe(true);

      const choiceChunks = chunks.filter((chunk) => chunk.choices.length > 0);
      expect(choiceChunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Par' });
      expect(
        choiceChunks.slice(1).every((chunk) => chunk.choices[0].delta.role === undefined),
      ).toBe(true);
      expect(choiceChunks.map((chunk) => chunk.choices[0].finish_reason)).toEqual([
        null,
        null,
        null,
        'stop',
      ]);
      expect(choiceChunks.every((chunk) => chunk.choices[0].index === 0)).toBe(true);
      // The usage chunk is the last one before [DONE].
      expect(chunks[chunks.length - 1]).toMatchObject({
        choices: [],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      });
    });

    it('writes `: keep-alive` comments while the upstream is silent', async () => {
      upstream.next(
        streamAnswer({ pieces: ['slow', ' answer', ' here'], delayMs: HEARTBEAT_MS * 5 }),
      );
      const { stream, text } = await streamToEnd(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      const events = sseEvents(text);

      const firstData = events.findIndex((event) => event.startsWith('data: '));
      const heartbeats = events
        .map((event, index) => (event === ': keep-alive' ? index : -1))
        .filter((index) => index >= 0);
      expect(heartbeats.length).toBeGreaterThanOrEqual(2);
      // Between content events, never after the end.
      expect(heartbeats.every((index) => index > firstData && index < events.length - 1)).toBe(
        true,
      );
      expect(events[events.length - 1]).toBe('data: [DONE]');
      expect(
        dataPayloads(stream.bytes().toString('utf8'))
          .map((c) => c.choices[0]?.delta.content ?? '')
          .join(''),
      ).toBe('slow answer here');
    });

    it('delivers a 4-byte emoji whole when the upstream splits it into single bytes', async () => {
      upstream.next(streamAnswer({ pieces: ['Hi 👋', ' — ', 'done 🎉'], splitBytes: true }));
      const stream = await postStream(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await stream.ended;

      const strict = new TextDecoder('utf-8', { fatal: true });
      const body = strict.decode(stream.bytes());
      expect(body).not.toContain('\uFFFD');
      // Every event the gateway wrote is valid UTF-8 on its own.
      for (const event of splitBytes(stream.bytes(), '\n\n'))
        expect(() => strict.decode(event)).not.toThrow();
      expect(
        dataPayloads(body)
          .map((chunk) => chunk.choices[0]?.delta.content ?? '')
          .join(''),
      ).toBe('Hi 👋 — done 🎉');
    });
  });

  describe('errors before the first token: a normal HTTP error, not a 200 stream', () => {
    it.each([
      { upstreamStatus: 401, status: 502, code: 'upstream_auth_failed' },
      { upstreamStatus: 500, status: 502, code: 'upstream_error' },
      { upstreamStatus: 503, status: 502, code: 'upstream_error' },
    ])('upstream $upstreamStatus -> $status $code', async ({ upstreamStatus, status, code }) => {
      upstream.next(
        errorResponse(upstreamStatus, {
          error: { message: 'upstream says no', type: 'server_error' },
        }),
      );
      const response = await postStream(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, status, code);
    });

    it('upstream 429 -> 429 with the upstream Retry-After passed through', async () => {
      upstream.next(
        errorResponse(
          429,
          { error: { message: 'slow down', type: 'requests' } },
          { 'retry-after': '7' },
        ),
      );
      const response = await postStream(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, 429, 'upstream_rate_limited');
      expect(response.headers['retry-after']).toBe('7');
    });

    it('connection refused -> 502', async () => {
      const response = await postStream(gateway.url, key, {
        model: 'alpha-refused',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, 502, 'upstream_error');
    });

    it('no response headers within timeout_ms -> 504', async () => {
      upstream.next(hang());
      const response = await postStream(gateway.url, key, {
        model: 'alpha-quick-timeout',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, 504, 'upstream_timeout');
    });

    it('headers but no first token within timeout_ms -> 504', async () => {
      upstream.next((_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
      });
      const response = await postStream(gateway.url, key, {
        model: 'alpha-quick-timeout',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, 504, 'upstream_timeout');
    });

    it('an error event before any content -> 502', async () => {
      upstream.next(streamAnswer({ pieces: ['never'], errorAfter: 0 }));
      const response = await postStream(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await expectStreamEnvelope(response, 502, 'upstream_error');
    });

    it('is raised by the openai client as an HTTP error', async () => {
      upstream.next(
        errorResponse(401, { error: { message: 'bad key', type: 'invalid_request_error' } }),
      );
      const attempt = client.chat.completions.create({
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await expect(attempt).rejects.toMatchObject({ status: 502, code: 'upstream_auth_failed' });
    });
  });

  describe('errors after the first token', () => {
    it('ends with one data: {"error":...} event and no [DONE]', async () => {
      upstream.next(streamAnswer({ pieces: ['one ', 'two ', 'three'], errorAfter: 2 }));
      const { stream, text: body } = await streamToEnd(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });

      expect(stream.status).toBe(200);
      expect(body).not.toContain('[DONE]');
      const payloads = dataPayloads(body);
      expect(payloads.filter((payload) => payload.error)).toHaveLength(1);
      expect(payloads[payloads.length - 1]).toEqual({
        error: {
          message: 'The model provider failed to answer.',
          type: 'upstream_error',
          param: null,
          code: 'upstream_error',
          source: 'upstream',
        },
      });
      expect(
        payloads
          .slice(0, -1)
          .map((chunk) => chunk.choices[0].delta.content)
          .join(''),
      ).toBe('one two ');
    });

    it('is raised by the official client as an APIError inside for await', async () => {
      upstream.next(streamAnswer({ pieces: ['one ', 'two ', 'three'], errorAfter: 2 }));
      const stream = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      const received: string[] = [];
      const consume = async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      };
      const error = await consume().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(APIError);
      expect(error).toMatchObject({ code: 'upstream_error', type: 'upstream_error' });
      expect(received.join('')).toBe('one two ');
    });

    it('turns an upstream connection cut into an error event, and never retries a partial stream', async () => {
      const backupCalls = backup.requests.length;
      upstream.next(streamAnswer({ pieces: ['partial ', 'answer'], cutAfter: 1 }));
      const { stream, text: body } = await streamToEnd(gateway.url, key, {
        model: 'beta-v4-pro-0813',
        messages: question,
        stream: true,
      });

      expect(stream.status).toBe(200);
      expect(body).not.toContain('[DONE]');
      const payloads = dataPayloads(body);
      expect(payloads[0].choices[0].delta.content).toBe('partial ');
      expect(payloads[payloads.length - 1].error.code).toBe('upstream_error');
      expect(backup.requests.length).toBe(backupCalls);
      // Recorded with the 200 the client got, the failure in error_code, not as a 502.
      const { status, httpStatus, errorCode } = await outcomeOf(
        String(stream.headers['x-request-id']),
      );
      expect({ status, httpStatus, errorCode }).toEqual({
        status: 'failed',
        httpStatus: 200,
        errorCode: 'upstream_error',
      });
    });
  });

  describe('client disconnect', () => {
    it('aborts the upstream request at once and still counts the streamed tokens', async () => {
      const text = 'Hello there, streaming world';
      upstream.next(firstPieceThenSilence(text));
      const aborted = upstream.waitForAbort();
      const stream = await postStream(gateway.url, key, {
        model: 'alpha-k3',
        messages: question,
        stream: true,
      });
      await stream.waitFor('streaming world');

      stream.disconnect();
      // The upstream would stay silent forever: only the gateway closing the connection ends this.
      await aborted;
      const { deployment, status, httpStatus, usage } = await outcomeOf(
        String(stream.headers['x-request-id']),
      );
      expect({ deployment, status, httpStatus }).toEqual({
        deployment: 'alpha-k3/0',
        status: 'aborted',
        httpStatus: 499,
      });
      expect(usage.completionTokens).toBe(estimateTokens(text));
      expect(usage.promptTokens).toBeGreaterThan(0);
    });

    it('stops the mock adapter mid-stream too', async () => {
      const stream = await postStream(gateway.url, key, {
        model: 'mock-slow',
        messages: question,
        stream: true,
      });
      await stream.waitFor('"role":"assistant"');
      const received = dataPayloads(stream.bytes().toString('utf8'))
        .map((chunk) => chunk.choices[0].delta.content)
        .join('');

      stream.disconnect();
      // The next mock chunk is a minute away, so an outcome now means the mock's wait was cut short.
      const { status, httpStatus, usage } = await outcomeOf(String(stream.headers['x-request-id']));
      expect({ status, httpStatus }).toEqual({ status: 'aborted', httpStatus: 499 });
      expect(usage.completionTokens).toBe(estimateTokens(received));
    });
  });

  describe('backpressure', () => {
    // Far more than every socket buffer between the upstream and the client can hold.
    const TOTAL = 256 * 1024 * 1024;

    it('reads the upstream only as fast as the client consumes', async () => {
      const flood = floodAnswer(TOTAL);
      upstream.next(flood.handler);
      const aborted = upstream.waitForAbort();
      const stream = await postStream(
        gateway.url,
        key,
        { model: 'alpha-k3', messages: question, stream: true },
        { read: false },
      );
      expect(stream.status).toBe(200);

      await waitUntilBlocked(flood.progress);
      const stalledAt = flood.progress.written;
      expect(flood.progress.finished).toBe(false);
      expect(stalledAt).toBeLessThan(TOTAL / 4);

      // Reading again lets the upstream write again: it was held back by this client, not stuck.
      stream.response.resume();
      await waitUntil(() => flood.progress.written > stalledAt + 8 * 1024 * 1024, 10_000, 20);
      stream.disconnect();
      await aborted;
      expect(flood.progress.finished).toBe(false);
    });
  });

  describe('mock adapter', () => {
    it('streams its answer in chunk_count chunks, with usage on request', async () => {
      const stream = await client.chat.completions.create({
        model: 'beta-v4-flash-0731',
        messages: [{ role: 'user', content: 'ping' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);

      const content = chunks.filter((chunk) => chunk.choices.length > 0);
      expect(content).toHaveLength(4);
      expect(content[0].choices[0].delta.role).toBe('assistant');
      expect(content.map((chunk) => chunk.choices[0].delta.content).join('')).toBe(
        'This is a mock answer from beta-v4-flash-0731. You said: "ping"',
      );
      expect(content[3].choices[0].finish_reason).toBe('stop');
      expect(chunks[chunks.length - 1]).toMatchObject({
        choices: [],
        usage: { completion_tokens: 10 },
      });
    });
  });
});

describe('streaming on the embedded defaults (no GATEWAY_CONFIG)', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({ env: { GATEWAY_CONFIG: '' } });
  });

  afterAll(() => gateway.close());

  it('streams every public model through the mock', async () => {
    const client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const stream = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      chunks++;
    }
    expect(text).toBe('This is a mock answer from alpha-k3. You said: "hi"');
    expect(chunks).toBeGreaterThan(1);
  });
});

async function expectStreamEnvelope(
  response: RawStream,
  status: number,
  code: string,
): Promise<void> {
  await response.ended;
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.bytes().toString('utf8'));
  expectEnvelope(body, code, {
    message: expect.any(String),
    source: expect.stringMatching(/^(gateway|upstream)$/),
  });
  expect(body.error.message).not.toContain('upstream says no');
}

/** Sends one content chunk, then nothing until the gateway hangs up. */
function firstPieceThenSilence(content: string): UpstreamHandler {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(deltaFrame(request.body.model, { role: 'assistant', content }));
  };
}

/** Waits until the flood has been blocked, with no byte written, for a while (or has finished). */
async function waitUntilBlocked(progress: FloodProgress): Promise<void> {
  let last = -1;
  let quietSince = Date.now();
  for (
    const deadline = Date.now() + 10_000;
    Date.now() < deadline && !progress.finished;
    await sleep(20)
  ) {
    if (progress.written !== last) {
      last = progress.written;
      quietSince = Date.now();
    } else if (progress.blocked && Date.now() - quietSince >= 300) {
      return;
    }
  }
}

function splitBytes(buffer: Buffer, separator: string): Buffer[] {
  const parts: Buffer[] = [];
  for (let start = 0; start < buffer.length;) {
    const end = buffer.indexOf(separator, start);
    if (end === -1) {
      parts.push(buffer.subarray(start));
      break;
    }
    parts.push(buffer.subarray(start, end));
    start = end + separator.length;
  }
  return parts;
}
