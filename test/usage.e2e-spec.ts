import { Logger } from '@nestjs/common';
import OpenAI from 'openai';
import { Client } from 'pg';
import { VirtualKeyService } from '../src/keys/virtual-key.service';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  hang,
  streamAnswer,
} from './support/upstreams/openai-upstream';
import { eventually } from './support/eventually';
import { logged } from './support/logs';
import { startTestApp, TestApp } from './support/test-app';

interface UsageRowOnDisk {
  request_id: string;
  public_model: string;
  deployment: string | null;
  status: string;
  http_status: number;
  error_code: string | null;
  stream: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
  partition: string;
}

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('usage records', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let database: Client;

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    upstream = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [
          {
            provider: 'openai',
            base_url: upstream.url,
            api_key: 'sk-upstream',
            model: 'up-1',
            name: 'primary',
          },
        ],
        'beta-v4-flash-0731': [{ provider: 'mock' }],
        // A slow stream that no HTTP client of the gateway's waits for at shutdown.
        'beta-v4-pro-0813': [
          { provider: 'mock', name: 'slow-mock', chunk_count: 5, chunk_delay_ms: 200 },
        ],
      },
      // Nothing is written before shutdown unless the shutdown path writes it.
      env: { USAGE_FLUSH_INTERVAL_MS: '60000', SSE_HEARTBEAT_MS: '0' },
    });
  });

  afterAll(async () => {
    await database.end();
    await upstream.close();
  });

  const rowsOf = async (keyId: string): Promise<UsageRowOnDisk[]> =>
    (
      await database.query<UsageRowOnDisk>(
        `SELECT request_id, public_model, deployment, status, http_status, error_code, stream, prompt_tokens,
                completion_tokens, latency_ms, tableoid::regclass::text AS partition
         FROM usage_records WHERE key_id = $1 ORDER BY request_id`,
        [keyId],
      )
    ).rows;

  it('writes one row per request (completed, failed, aborted, still streaming at shutdown) when the app closes', async () => {
    const secret = await gateway.createKey();
    const keyId = (await gateway.app.get(VirtualKeyService).list()).find(
      (key) => key.keyPrefix === secret.slice(0, 10),
    )!.id;
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const as = (requestId: string) => ({ headers: { 'x-request-id': requestId } });

    // 1. Completed, with the provider's token counts.
    upstream.next(completion('ok', { prompt_tokens: 11, completion_tokens: 3 }));
    await client.chat.completions.create({ model: 'alpha-k3', messages }, as('u1-completed'));

    // 2. Failed: the provider answers 500, the client gets 502.
    upstream.next(errorResponse(500, { error: { message: 'boom', type: 'server_error' } }));
    await expect(
      client.chat.completions.create({ model: 'alpha-k3', messages }, as('u2-failed')),
    ).rejects.toMatchObject({ status: 502 });

    // 3. A completed stream reporting usage.
    upstream.next(
      streamAnswer({ pieces: ['a', 'b'], usage: { prompt_tokens: 5, completion_tokens: 2 } }),
    );
    const done = await client.chat.completions.create(
      { model: 'alpha-k3', messages, stream: true, stream_options: { include_usage: true } },
      as('u3-streamed'),
    );
    for await (const _chunk of done) void _chunk;

    // 4. A stream the client leaves after its first chunk.
    upstream.next(streamAnswer({ pieces: ['one', 'two', 'three', 'four', 'five'], delayMs: 200 }));
    const aborted = upstream.waitForAbort();
    const leaving = await client.chat.completions.create(
      { model: 'alpha-k3', messages, stream: true },
      as('u4-aborted-stream'),
    );
    for await (const _chunk of leaving) break; // the SDK aborts the request
    await aborted;

    // 5. A non-streaming request the client gives up on while the provider is still thinking.
    upstream.next(hang());
    const controller = new AbortController();
    const gaveUp = upstream.waitForAbort();
    const pending = client.chat.completions.create(
      { model: 'alpha-k3', messages },
      { ...as('u5-aborted'), signal: controller.signal },
    );
    await eventually(
      async () => expect(upstream.lastRequest?.headers['x-request-id']).toBe('u5-aborted'),
      2_000,
    );
    controller.abort();
    await expect(pending).rejects.toThrow();
    await gaveUp;

    // 6. The built-in mock deployment.
    await client.chat.completions.create({ model: 'beta-v4-flash-0731', messages }, as('u6-mock'));

    // 7. A stream still running when the gateway is asked to stop: it finishes, and counts.
    upstream.next(streamAnswer({ pieces: ['x', 'y', 'z', 'w'], delayMs: 150 }));
    const running = await client.chat.completions.create(
      { model: 'alpha-k3', messages, stream: true },
      as('u7-running-at-shutdown'),
    );
    const iterator = running[Symbol.asyncIterator]();
    const first = await iterator.next();
    let text = first.done ? '' : (first.value.choices[0]?.delta?.content ?? '');

    const slow = await client.chat.completions.create(
      { model: 'beta-v4-pro-0813', messages, stream: true },
      as('u8-mock-running-at-shutdown'),
    );
    const slowChunks = slow[Symbol.asyncIterator]();
    await slowChunks.next();

    // Buffered, not written on the request path.
    expect(await rowsOf(keyId)).toEqual([]);

    const logLines = jest.spyOn(Logger, 'log');
    const closing = gateway.close();
    for (let step = await iterator.next(); !step.done; step = await iterator.next())
      text += step.value.choices[0]?.delta?.content ?? '';
    let slowChunkCount = 1;
    for (let step = await slowChunks.next(); !step.done; step = await slowChunks.next())
      slowChunkCount++;
    await closing;
    // Two streams were running: each is one request, though both its HTTP exchange and its
    // pipeline work were under way.
    expect(logged(logLines, 'shutting down:')).toEqual(['shutting down: 2 request(s) in flight']);
    logLines.mockRestore();
    expect(text).toBe('xyzw');
    expect(slowChunkCount).toBeGreaterThanOrEqual(5);

    const rows = await rowsOf(keyId);
    const month = new Date();
    const partition = `usage_records_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(rows).toEqual([
      row('u1-completed', {
        status: 'completed',
        http_status: 200,
        prompt_tokens: 11,
        completion_tokens: 3,
      }),
      row('u2-failed', {
        status: 'failed',
        http_status: 502,
        error_code: 'upstream_error',
        prompt_tokens: 0,
        completion_tokens: 0,
      }),
      row('u3-streamed', {
        status: 'completed',
        http_status: 200,
        stream: true,
        prompt_tokens: 5,
        completion_tokens: 2,
      }),
      row('u4-aborted-stream', {
        status: 'aborted',
        http_status: 499,
        error_code: 'client_disconnected',
        stream: true,
      }),
      row('u5-aborted', {
        status: 'aborted',
        http_status: 499,
        error_code: 'client_disconnected',
        prompt_tokens: 0,
        completion_tokens: 0,
      }),
      row('u6-mock', {
        status: 'completed',
        http_status: 200,
        public_model: 'beta-v4-flash-0731',
        deployment: 'beta-v4-flash-0731/0',
      }),
      row('u7-running-at-shutdown', { status: 'completed', http_status: 200, stream: true }),
      row('u8-mock-running-at-shutdown', {
        status: 'completed',
        http_status: 200,
        stream: true,
        public_model: 'beta-v4-pro-0813',
        deployment: 'slow-mock',
      }),
    ]);
    for (const written of rows) {
      expect(written.partition).toBe(partition);
      expect(written.latency_ms).toBeGreaterThanOrEqual(0);
    }
    // The abandoned stream counted what had been streamed before the client left.
    expect(rows[3].completion_tokens).toBeGreaterThan(0);
  });
});

function row(requestId: string, fields: Partial<UsageRowOnDisk>) {
  return {
    request_id: requestId,
    public_model: 'alpha-k3',
    deployment: 'primary',
    status: 'completed',
    http_status: 200,
    error_code: null,
    stream: false,
    prompt_tokens: expect.any(Number),
    completion_tokens: expect.any(Number),
    latency_ms: expect.any(Number),
    partition: expect.any(String),
    ...fields,
  };
}
