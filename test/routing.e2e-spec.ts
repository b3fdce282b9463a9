import OpenAI from 'openai';
import { DeploymentHealthService } from '../src/pipeline/deployment-health.service';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/eventually';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  hang,
  streamAnswer,
} from './support/upstreams/openai-upstream';
import { closedPort } from './support/ports';

const COOLDOWN_MS = 400;
const hi = [{ role: 'user' as const, content: 'hi' }];

/** Routing (docs/providers-and-routing.md, "Routing"): weighted choice, failover before the first byte, cool-downs. */
describe('Routing between deployments (e2e)', () => {
  let primary: FakeOpenAiUpstream;
  let backup: FakeOpenAiUpstream;
  let gateway: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    primary = await FakeOpenAiUpstream.start();
    backup = await FakeOpenAiUpstream.start();
    const dead = `http://127.0.0.1:${await closedPort()}/v1`;
    const openai = (name: string, base_url: string, extra: Record<string, unknown> = {}) => ({
      provider: 'openai',
      base_url,
      api_key: `sk-${name}`,
      model: `${name}-model`,
      name,
      ...extra,
    });
    // Each scenario has its own deployment names: health is kept per deployment name.
    const pair = (model: string, first: string) => [
      openai(`${model}-first`, first),
      openai(`${model}-backup`, backup.url, { weight: 0 }),
    ];
    gateway = await startTestApp({
      models: {
        'dead-json': pair('dead-json', dead),
        'dead-stream': pair('dead-stream', dead),
        'err-json': pair('err-json', primary.url),
        'err-stream': pair('err-stream', primary.url),
        'cut-stream': pair('cut-stream', primary.url),
        'retry-after': pair('retry-after', primary.url),
        'retry-after-long': pair('retry-after-long', primary.url),
        cooling: pair('cooling', primary.url),
        'slow-first-token': [
          openai('slow-first-token-first', primary.url, { first_token_timeout_ms: 300 }),
          openai('slow-first-token-backup', backup.url, { weight: 0 }),
        ],
        // Four dead deployments: ROUTER_MAX_ATTEMPTS (default 3) stops after three.
        'all-dead': await Promise.all(
          [1, 2, 3, 4].map(async (n) =>
            openai(`all-dead-${n}`, `http://127.0.0.1:${await closedPort()}/v1`),
          ),
        ),
        weighted: [
          { provider: 'mock', name: 'heavy', weight: 3 },
          { provider: 'mock', name: 'light', weight: 1 },
        ],
      },
      env: {
        KEY_RPM_LIMIT: '0',
        DEPLOYMENT_COOLDOWN_MS: String(COOLDOWN_MS),
        LOG_LEVEL: 'error',
        SSE_HEARTBEAT_MS: '0',
      },
    });
    client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await primary?.close();
    await backup?.close();
  });

  const serverError = () =>
    errorResponse(500, { error: { message: 'boom', type: 'server_error' } });

  it.each([
    ['dead-json', 'a deployment that refuses connections'],
    ['err-json', 'a deployment answering 500'],
  ])('JSON: fails over from %s (%s); the client sees one clean answer', async (model) => {
    if (model === 'err-json') primary.next(serverError());
    backup.next(completion('from backup'));
    const { data, response } = await client.chat.completions
      .create({ model, messages: hi })
      .withResponse();
    expect(data.choices[0].message.content).toBe('from backup');
    expect(data.model).toBe(model);
    expect(response.headers.get('x-gateway-deployment')).toBe(`${model}-backup`);
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    expect(Number(response.headers.get('x-gateway-overhead-ms'))).toBeGreaterThanOrEqual(0);
  });

  it.each([['dead-stream'], ['err-stream']])(
    'stream: fails over from %s before the first byte; one clean stream',
    async (model) => {
      if (model === 'err-stream') primary.next(serverError());
      backup.next(streamAnswer({ pieces: ['from ', 'backup'] }));
      const { data: stream, response } = await client.chat.completions
        .create({ model, messages: hi, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = '';
      let usageChunks = 0;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usageChunks++;
      }
      expect(text).toBe('from backup');
      expect(usageChunks).toBe(1);
      expect(response.headers.get('x-gateway-deployment')).toBe(`${model}-backup`);
      expect(response.headers.get('x-gateway-attempts')).toBe('2');
      expect(response.headers.get('x-gateway-overhead-ms')).toMatch(/^\d+$/);
    },
  );

  it('stream: fails over when the first deployment misses its first-token deadline', async () => {
    primary.next(hang());
    backup.next(streamAnswer({ pieces: ['in ', 'time'] }));
    const started = Date.now();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'slow-first-token', messages: hi, stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('in time');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(response.headers.get('x-gateway-deployment')).toBe('slow-first-token-backup');
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
  });

  it('never sends a second upstream request once a stream has sent its first byte', async () => {
    const backupCalls = backup.requests.length;
    const primaryCalls = primary.requests.length;
    primary.next(streamAnswer({ pieces: ['one ', 'two ', 'three'], delayMs: 20, cutAfter: 2 }));
    const stream = await client.chat.completions.create({
      model: 'cut-stream',
      messages: hi,
      stream: true,
    });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      })(),
    ).rejects.toThrow();
    expect(text).toBe('one two ');
    await sleep(100);
    expect(primary.requests.length).toBe(primaryCalls + 1);
    expect(backup.requests.length).toBe(backupCalls);
  });

  /** The primary answers 429 with this Retry-After, the backup then answers `text`: when each did. */
  function rateLimitedThenAnswered(retryAfter: string, text: string) {
    const times = { rateLimitedAt: 0, retriedAt: 0 };
    primary.next((request, response, raw) => {
      times.rateLimitedAt = Date.now();
      return errorResponse(
        429,
        { error: { message: 'slow down', type: 'requests' } },
        { 'retry-after': retryAfter },
      )(request, response, raw);
    });
    backup.next((request, response, raw) => {
      times.retriedAt = Date.now();
      return completion(text)(request, response, raw);
    });
    return times;
  }

  it('waits out a short Retry-After before the next attempt', async () => {
    const times = rateLimitedThenAnswered('1', 'after the pause');
    const { data, response } = await client.chat.completions
      .create({ model: 'retry-after', messages: hi })
      .withResponse();
    expect(data.choices[0].message.content).toBe('after the pause');
    expect(times.retriedAt - times.rateLimitedAt).toBeGreaterThanOrEqual(950);
    expect(times.retriedAt - times.rateLimitedAt).toBeLessThan(1_500);
    // The pause was the provider's, not the gateway's own work.
    expect(Number(response.headers.get('x-gateway-overhead-ms'))).toBeLessThan(500);
  });

  it('does not wait for a long Retry-After: moves on at once and rests that deployment instead', async () => {
    const times = rateLimitedThenAnswered('60', 'elsewhere');
    await client.chat.completions.create({ model: 'retry-after-long', messages: hi });
    expect(times.retriedAt - times.rateLimitedAt).toBeLessThan(500);
    const primaryCalls = primary.requests.length;
    const { response } = await client.chat.completions
      .create({ model: 'retry-after-long', messages: hi })
      .withResponse();
    expect(primary.requests.length).toBe(primaryCalls);
    expect(response.headers.get('x-gateway-attempts')).toBe('1');
  });

  it('cools a deployment down after 3 failures in a row, then lets one probe request through', async () => {
    const health = gateway.app.get(DeploymentHealthService);
    const ask = () =>
      client.chat.completions.create({ model: 'cooling', messages: hi }).withResponse();
    for (let i = 0; i < 3; i++) {
      primary.next(serverError());
      const { response } = await ask();
      expect(response.headers.get('x-gateway-deployment')).toBe('cooling-backup');
    }
    expect(health.snapshot().find((entry) => entry.name === 'cooling-first')?.status).toBe(
      'cooling_down',
    );

    // Open: the failing deployment is skipped, the answer comes in one attempt.
    const primaryCalls = primary.requests.length;
    const skipped = await ask();
    expect(skipped.response.headers.get('x-gateway-deployment')).toBe('cooling-backup');
    expect(skipped.response.headers.get('x-gateway-attempts')).toBe('1');
    expect(primary.requests.length).toBe(primaryCalls);

    // After the cool-down one probe goes through; it fails, so the deployment rests again.
    await sleep(COOLDOWN_MS + 50);
    primary.next(serverError());
    const failedProbe = await ask();
    expect(failedProbe.response.headers.get('x-gateway-attempts')).toBe('2');
    expect(primary.requests.length).toBe(primaryCalls + 1);
    const stillOpen = await ask();
    expect(stillOpen.response.headers.get('x-gateway-attempts')).toBe('1');
    expect(primary.requests.length).toBe(primaryCalls + 1);

    // A successful probe closes it: the deployment serves again.
    await sleep(COOLDOWN_MS + 50);
    primary.next(completion('recovered'));
    const probe = await ask();
    expect(probe.data.choices[0].message.content).toBe('recovered');
    expect(probe.response.headers.get('x-gateway-deployment')).toBe('cooling-first');
    expect(health.snapshot().find((entry) => entry.name === 'cooling-first')).toBeUndefined();
  });

  it('stops after ROUTER_MAX_ATTEMPTS attempts and says so in the headers of the error', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'all-dead', messages: hi }),
    });
    expect(response.status).toBe(502);
    expect((await response.json()).error).toMatchObject({
      code: 'upstream_error',
      source: 'upstream',
    });
    expect(response.headers.get('x-gateway-attempts')).toBe('3');
    expect(response.headers.get('x-gateway-deployment')).toBeNull();
  });

  it('shares the load in proportion to the weights over 1,000 requests', async () => {
    const served: Record<string, number> = {};
    const total = 1_000;
    const concurrency = 25;
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < total) {
          sent++;
          const response = await fetch(`${gateway.url}/v1/chat/completions`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${client.apiKey}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ model: 'weighted', messages: hi, max_tokens: 1 }),
          });
          await response.arrayBuffer();
          const name = response.headers.get('x-gateway-deployment')!;
          served[name] = (served[name] ?? 0) + 1;
        }
      }),
    );
    expect(served.heavy + served.light).toBe(total);
    // Expected 750 / 250; the standard deviation is ~14, so ±70 is five of them.
    expect(Math.abs(served.heavy - 750)).toBeLessThanOrEqual(70);
  }, 60_000);
});
