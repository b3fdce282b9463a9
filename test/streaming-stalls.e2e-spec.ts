import request from 'supertest';
import { postStream } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';
import {
  floodAnswer,
  FakeOpenAiUpstream,
  UpstreamHandler,
} from './support/upstreams/openai-upstream';

// Streams that stall on either side must not hold an upstream connection open for ever.

const question = [{ role: 'user', content: 'hi' }];

describe('stalled streams', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [upstream.deployment('m', { timeout_ms: 400 })],
      },
      env: { SSE_STALL_TIMEOUT_MS: '500', SSE_HEARTBEAT_MS: '100' },
    });
    key = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('gives up on a provider that sends only comments before its first token: 504, upstream closed', async () => {
    upstream.next(commentsForever());
    const aborted = upstream.waitForAbort();
    const started = Date.now();
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({ model: 'alpha-k3', messages: question, stream: true });
    expect(response.status).toBe(504);
    expect(response.body.error.code).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    await aborted;
  });

  it('disconnects a client that stops reading, which closes the upstream', async () => {
    upstream.next(floodAnswer().handler);
    const aborted = upstream.waitForAbort();
    const stream = await postStream(
      gateway.url,
      key,
      { model: 'alpha-k3', messages: question, stream: true },
      { read: false },
    );
    expect(stream.status).toBe(200);
    // Without the stall timeout the paused client would hold the upstream open until it left.
    await aborted;
    stream.disconnect();
  });
});

function commentsForever(): UpstreamHandler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => response.write(': PROCESSING\n\n'), 100);
    response.on('close', () => clearInterval(timer));
  };
}
