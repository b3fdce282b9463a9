import type { ServerResponse } from 'node:http';
import OpenAI, { APIError } from 'openai';
import { dataPayloads, postStream } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';
import {
  drainOrClose,
  FakeOpenAiUpstream,
  streamAnswer,
  UpstreamHandler,
} from './support/upstreams/openai-upstream';
import { waitUntil } from './support/eventually';

// What a provider sends back is bounded: the size of a JSON answer or of one stream event, and
// the duration of a stream. Cutting one off closes its upstream connection.

const question = [{ role: 'user' as const, content: 'hi' }];
const MAX_BODY = 1024 * 1024;

describe('bounded upstream answers', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [upstream.deployment('m')],
        'alpha-short': [upstream.deployment('m', { timeout_ms: 400 })],
      },
      env: {
        UPSTREAM_MAX_BODY_BYTES: String(MAX_BODY),
        STREAM_MAX_DURATION_MS: '1000',
        SSE_HEARTBEAT_MS: '0',
        LOG_LEVEL: 'warn',
      },
    });
    client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  /** What the official client throws for a completion that fails (it is not retried). */
  const completionError = (model: string, stream = false) =>
    client.chat.completions
      .create({ model, messages: question, ...(stream ? { stream: true } : {}) })
      .catch((e: unknown) => e) as Promise<APIError>;

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('cuts off a JSON answer larger than UPSTREAM_MAX_BODY_BYTES: 502, upstream connection closed', async () => {
    const sent = { bytes: 0 };
    upstream.next(endlessJson(sent));
    const aborted = upstream.waitForAbort();
    const error = await completionError('alpha-k3');
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
    await aborted;
    // Read up to the limit, plus what sits in socket buffers: nowhere near the 200 MB on offer.
    expect(sent.bytes).toBeLessThan(32 * MAX_BODY);
    await waitUntil(() => upstream.openConnections === 0);
  });

  it('refuses a JSON answer whose Content-Length is over the limit without reading it', async () => {
    upstream.next((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(200 * 1024 * 1024),
      });
      response.write('{"id":"');
    });
    const aborted = upstream.waitForAbort();
    const error = await completionError('alpha-k3');
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
    await aborted;
    await waitUntil(() => upstream.openConnections === 0);
  });

  it('bounds a whole JSON answer by timeout_ms, even one that trickles in without ever going silent', async () => {
    upstream.next(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      await writeSlowly(response, ' ', 100, 50);
    });
    const aborted = upstream.waitForAbort();
    const started = Date.now();
    const error = await completionError('alpha-short');
    expect(error.status).toBe(504);
    expect(error.code).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    await aborted;
  });

  it('bounds a JSON answer with a declared length by timeout_ms too (read whole, not counted)', async () => {
    upstream.next(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      await writeSlowly(response, ' ', 100, 50);
    });
    const aborted = upstream.waitForAbort();
    const error = await completionError('alpha-short');
    expect(error.status).toBe(504);
    expect(error.code).toBe('upstream_timeout');
    await aborted;
  });

  it('cuts off one stream event larger than the limit', async () => {
    upstream.next(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"');
      await writeUntilClosed(response, 'x'.repeat(64 * 1024));
    });
    const aborted = upstream.waitForAbort();
    const error = await completionError('alpha-k3', true);
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
    await aborted;
  });

  it('ends a stream that runs longer than STREAM_MAX_DURATION_MS with an error event; upstream closed', async () => {
    upstream.next(
      streamAnswer({ pieces: Array.from({ length: 50 }, (_, i) => `p${i} `), delayMs: 100 }),
    );
    const aborted = upstream.waitForAbort();
    const started = Date.now();
    const stream = await postStream(gateway.url, await gateway.createKey(), {
      model: 'alpha-k3',
      messages: question,
      stream: true,
    });
    expect(stream.status).toBe(200);
    await stream.ended;
    const elapsed = Date.now() - started;
    const body = stream.bytes().toString('utf8');
    expect(body).not.toContain('[DONE]');
    const payloads = dataPayloads(body);
    expect(payloads[payloads.length - 1]).toEqual({
      error: expect.objectContaining({ code: 'upstream_timeout' }),
    });
    expect(payloads.length).toBeGreaterThan(3);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3_000);
    await aborted;
  });

  it('closes the upstream socket of a stream the client abandons instead of keeping it', async () => {
    upstream.next(
      streamAnswer({ pieces: Array.from({ length: 50 }, (_, i) => `p${i} `), delayMs: 20 }),
    );
    const aborted = upstream.waitForAbort();
    const stream = await postStream(gateway.url, await gateway.createKey(), {
      model: 'alpha-k3',
      messages: question,
      stream: true,
    });
    await stream.waitFor('p2 ');
    stream.disconnect();
    await aborted;
    await waitUntil(() => upstream.openConnections === 0);
  });
});

/** A JSON answer without Content-Length that never ends (up to 200 MB), counting what was written. */
function endlessJson(sent: { bytes: number }): UpstreamHandler {
  return async (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write(
      '{"id":"chatcmpl-big","choices":[{"index":0,"message":{"role":"assistant","content":"',
    );
    const piece = 'x'.repeat(64 * 1024);
    while (!response.destroyed && sent.bytes < 200 * 1024 * 1024) {
      sent.bytes += piece.length;
      if (!response.write(piece)) await drainOrClose(response);
    }
  };
}

async function writeUntilClosed(response: ServerResponse, piece: string): Promise<void> {
  for (
    let written = 0;
    !response.destroyed && written < 200 * 1024 * 1024;
    written += piece.length
  ) {
    if (!response.write(piece)) await drainOrClose(response);
  }
}

async function writeSlowly(
  response: ServerResponse,
  piece: string,
  intervalMs: number,
  times: number,
): Promise<void> {
  for (let i = 0; i < times && !response.destroyed; i++) {
    response.write(piece);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
