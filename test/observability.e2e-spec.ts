import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { completion, errorResponse, FakeOpenAiUpstream } from './support/upstreams/openai-upstream';
import { BuiltGateway, spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';

const ADMIN_KEY = 'admin-SECRET-do-not-log-0123456789';
const PROVIDER_KEY = 'sk-provider-SECRET-do-not-log-42';
const METRICS_TOKEN = 'metrics-SECRET-token-0123456789';
const WRONG_KEY = 'gk-wrong-SECRET-do-not-log-000000';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, exposition 0.0.4: `name{a="b",...} value`; comments skipped. */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}

describe('JSON logs and Prometheus metrics of the built gateway (real process)', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: BuiltGateway;
  let child: BuiltGateway['child'];
  const stdout = () => gateway.output.stdout;
  let url: string;
  let virtualKey = 'unset';

  const logLines = () =>
    stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
  const requestLine = async (id: string) => {
    for (let i = 0; i < 50; i++) {
      const line = logLines().find((l) => l.req?.id === id);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no log line for request ${id}; stdout:\n${stdout()}`);
  };
  const scrape = async (token?: string) =>
    fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    compileGateway();
    upstream = await FakeOpenAiUpstream.start();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-obs-'));
    const configPath = join(dir, 'gateway.yaml');
    writeFileSync(
      configPath,
      `models:\n  obs-model:\n    - provider: openai\n      name: obs-deployment\n      base_url: ${upstream.url}\n      api_key: ${PROVIDER_KEY}\n      model: gpt-test\n      price: { input: '2', output: '10' }\n`,
    );
    gateway = spawnBuiltGateway({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'log',
      GATEWAY_DATA_DIR: join(dir, 'data'),
      GATEWAY_CONFIG: configPath,
      ADMIN_API_KEY: ADMIN_KEY,
      METRICS_TOKEN,
    });
    child = gateway.child;
    url = await gateway.listening();
  }, 120_000);

  afterAll(async () => {
    // The last test stops the gateway itself.
    await gateway?.stop();
    await upstream?.close();
  });

  it('logs a 401 as one JSON line carrying the x-request-id the client saw', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${WRONG_KEY}`,
        'content-type': 'application/json',
        'x-request-id': 'obs-401-check',
      },
      body: JSON.stringify({ model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('obs-401-check');
    const line = await requestLine('obs-401-check');
    expect(line).toMatchObject({
      level: 40,
      req: { method: 'POST', path: '/v1/chat/completions' },
      res: { statusCode: 401 },
    });
    expect(typeof line.responseTime).toBe('number');
  });

  it('logs a completion with key id, model, deployment, attempts and tokens; counts it in /metrics', async () => {
    const created = await fetch(`${url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'obs-key' }),
    });
    expect(created.status).toBe(201);
    const { id: keyId, secret } = (await created.json()) as { id: string; secret: string };
    virtualKey = secret;
    const client = new OpenAI({ apiKey: secret, baseURL: `${url}/v1`, maxRetries: 0 });

    upstream.next(
      completion('hello', { prompt_tokens: 7, completion_tokens: 3 }),
      errorResponse(503, { error: { message: 'down' } }),
    );
    const { data, response } = await client.chat.completions
      .create({ model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0].message.content).toBe('hello');
    const line = await requestLine(response.headers.get('x-request-id')!);
    expect(line).toMatchObject({
      level: 30,
      keyId,
      endpoint: 'chat_completions',
      model: 'obs-model',
      deployment: 'obs-deployment',
      attempts: 1,
      promptTokens: 7,
      completionTokens: 3,
      res: { statusCode: 200 },
    });
    // An upstream failure is counted by kind.
    await expect(
      client.chat.completions.create({
        model: 'obs-model',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toThrow();
    // A model nobody configured: answered 404, and never a label value.
    await expect(
      client.chat.completions.create({
        model: 'client-made-up-model',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toThrow();

    // Rejected before a model: counted when it is a POST to the completions route (whatever the
    // case, with or without a trailing slash, as the router matches it), even when the body
    // parser refuses it; any other method or path is not.
    const post = (path: string, contentType: string, body = 'x') =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': contentType },
        body,
      });
    expect((await post('/v1/chat/completions', 'text/plain')).status).toBe(415);
    expect((await post('/V1/Chat/Completions/', 'text/plain')).status).toBe(415);
    expect((await post('/v1/chat/completions', 'application/json')).status).toBe(400);
    expect((await post('/v1/chat/completions/x', 'application/json', '{}')).status).toBe(404);
    expect((await post('/v1/embeddings', 'text/plain')).status).toBe(415);
    expect((await fetch(`${url}/v1/models/client-made-up-model`)).status).toBe(401);

    expect((await scrape()).status).toBe(401);
    expect((await scrape('wrong-token-0123456789')).status).toBe(401);
    const scraped = await scrape(METRICS_TOKEN);
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    const samples = parsePrometheus(text);
    expect(
      sampleValue(samples, 'gateway_requests_total', {
        model: 'obs-model',
        deployment: 'obs-deployment',
        status: '200',
        endpoint: 'chat_completions',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'gateway_requests_total', {
        model: '-',
        deployment: '-',
        status: '401',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(samples, 'gateway_requests_total', {
        model: '-',
        deployment: '-',
        status: '404',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'gateway_requests_total', {
        model: '-',
        deployment: '-',
        status: '415',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'gateway_requests_total', {
        model: '-',
        deployment: '-',
        status: '400',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'gateway_tokens_total', { model: 'obs-model', type: 'prompt' }),
    ).toBe(7);
    expect(
      sampleValue(samples, 'gateway_tokens_total', { model: 'obs-model', type: 'completion' }),
    ).toBe(3);
    // 7 prompt tokens at $2 and 3 completion tokens at $10 per million: $0.000044.
    expect(
      sampleValue(samples, 'gateway_cost_usd_total', {
        model: 'obs-model',
        deployment: 'obs-deployment',
      }),
    ).toBeCloseTo(0.000044, 12);
    expect(
      sampleValue(samples, 'gateway_request_duration_seconds_count', { model: 'obs-model' }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'gateway_upstream_errors_total', { deployment: 'obs-deployment' }),
    ).toBe(1);
    expect(sampleValue(samples, 'gateway_overhead_seconds_count')).toBe(2);
    expect(sampleValue(samples, 'gateway_rate_limited_total')).toBe(0);
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).toBeDefined();
    expect(text).not.toContain('client-made-up-model');
  });

  it('does not log successful health checks and scrapes at info', async () => {
    const health = await fetch(`${url}/health`, {
      headers: { 'x-request-id': 'obs-health-check' },
    });
    expect(health.status).toBe(200);
    await scrape(METRICS_TOKEN);
    await fetch(`${url}/health`, { headers: { 'x-request-id': 'obs-after-health' } }).then(() =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-request-id': 'obs-marker' },
      }),
    );
    await requestLine('obs-marker');
    expect(
      logLines().filter(
        (l) => /^\/(health|metrics)/.test(l.req?.path ?? '') && l.res?.statusCode < 400,
      ),
    ).toEqual([]);
  });

  it('never writes an admin key, a provider key or a virtual key to its output', () => {
    const output = gateway.output.stdout + gateway.output.stderr;
    expect(output).toContain('obs-401-check'); // the log was captured at all
    for (const secret of [ADMIN_KEY, PROVIDER_KEY, METRICS_TOKEN, WRONG_KEY, virtualKey])
      expect(output).not.toContain(secret);
    expect(output).not.toMatch(/authorization/i);
  });

  // Log lines leave stdout in batches (docs/observability.md): a stop must still write the last.
  it('writes the lines of its last moments when stopped with SIGTERM, and exits with status 0', async () => {
    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'obs-last-words' },
    });
    expect(answer.status).toBe(401);
    const closed = new Promise<[number | null, string | null]>((resolve) =>
      child.once('close', (code, signal) => resolve([code, signal])),
    );
    child.kill('SIGTERM');
    expect(await closed).toEqual([0, null]);
    const lines = logLines();
    expect(lines.find((line) => line.req?.id === 'obs-last-words')).toMatchObject({
      res: { statusCode: 401 },
    });
    expect(lines.some((line) => /^shutting down: \d+ request/.test(line.msg ?? ''))).toBe(true);
  });
});
