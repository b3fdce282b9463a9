#!/usr/bin/env node
// Benchmark: the same load against a fake OpenAI upstream with a fixed latency, once directly and
// once through the gateway, on loopback. Reports medians and the gateway/direct ratios, so the
// figures mean something on any machine. Run with `npm run bench:failover` (it builds first).
//
//   BENCH_DURATION=10 BENCH_CONNECTIONS=50 BENCH_UPSTREAM_LATENCY_MS=20 npm run bench:failover
//
// BENCH_STREAM=1 measures streamed answers instead: the upstream sends BENCH_STREAM_CHUNKS content
// events (default 20) BENCH_STREAM_DELAY_MS apart (default 5) after its latency.
//
// BENCH_FAILOVER=dead|500 also measures a model whose first deployment is dead (connection
// refused) or answers HTTP 500, with the upstream as its standby: every request fails over once,
// so its latency minus the plain gateway's is the cost of a failover (backoff included; set
// ROUTER_BACKOFF_BASE_MS to change it). Cool-downs are switched off for that run.
//
// BENCH_DATABASE_URL runs the gateway on that Postgres (as in production) instead of the embedded
// PGlite, which shares the gateway's event loop and so adds to its tail latency.
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { createFakeUpstream } = require('./fake-upstream');
// closedPort: the failing first deployment of BENCH_FAILOVER=dead.
const { answers, closedPort, removeFolderOnStop } = require('./process-stats');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LATENCY_MS = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GATEWAY_PORT = Number(process.env.BENCH_GATEWAY_PORT ?? 18080);
const STREAM = process.env.BENCH_STREAM === '1';
const STREAM_CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 20);
const STREAM_DELAY_MS = Number(process.env.BENCH_STREAM_DELAY_MS ?? 5);
const FAILOVER = process.env.BENCH_FAILOVER ?? '';

/** The failing first deployment of BENCH_FAILOVER=500. */
function startFailingUpstream() {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"boom","type":"server_error"}}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The benchmark's fake OpenAI upstream (fake-upstream.js), in this process. */
function startUpstream() {
  const server = createFakeUpstream({
    latencyMs: LATENCY_MS,
    chunks: STREAM_CHUNKS,
    chunkDelayMs: STREAM_DELAY_MS,
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? '';
const ROOT = join(__dirname, '..', '..');

/** On an external database the demo key is not printed: make one with the CLI. */
function createKeyWithCli(env) {
  const { execFileSync } = require('node:child_process');
  const name = `bench-${Date.now()}`;
  const output = execFileSync(
    process.execPath,
    [join(ROOT, 'dist', 'cli', 'main.js'), 'keys', 'create', '--name', name, '--json'],
    { env },
  );
  return JSON.parse(output.toString()).secret;
}

function startGateway(upstreamUrl, failingUrl) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const config = join(dir, 'gateway.yaml');
  const deployment = (url, extra = '') =>
    `    - provider: openai\n      base_url: ${url}\n      api_key: sk-bench\n      model: bench-model\n${extra}`;
  let yaml = `models:\n  alpha-k3:\n${deployment(upstreamUrl)}`;
  if (failingUrl)
    yaml += `  failover:\n${deployment(failingUrl)}${deployment(upstreamUrl, '      weight: 0\n')}`;
  writeFileSync(config, yaml);
  const env = {
    ...process.env,
    PORT: String(GATEWAY_PORT),
    HOST: '127.0.0.1',
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    DATABASE_URL,
    DB_MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'warn',
    // Measure the proxy path, not the 100/min default limit.
    KEY_RPM_LIMIT: process.env.KEY_RPM_LIMIT ?? '0',
    // Every request must pay the failover: no cool-down may skip the failing deployment.
    ...(failingUrl ? { DEPLOYMENT_FAILURE_THRESHOLD: '1000000000' } : {}),
  };
  const presetKey = DATABASE_URL ? createKeyWithCli(env) : undefined;
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  removeFolderOnStop(child, dir);
  if (presetKey) return Promise.resolve({ child, key: presetKey });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (data) => {
      output += data;
      const key = /Demo virtual key: (\S+)/.exec(output)?.[1];
      if (key) resolve({ child, key });
    });
    child.on('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
}

async function waitReady(url) {
  for (let i = 0; i < 100; i++) {
    if (await answers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became ready`);
}

function load(url, headers, model = 'alpha-k3') {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          model,
          messages: [{ role: 'user', content: 'Say something short.' }],
          max_tokens: 32,
          stream: STREAM,
        }),
        connections: CONNECTIONS,
        duration: DURATION,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const upstream = await startUpstream();
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}/v1`;
  const failing = FAILOVER === '500' ? await startFailingUpstream() : undefined;
  const failingUrl =
    FAILOVER === 'dead'
      ? `http://127.0.0.1:${await closedPort()}/v1`
      : failing
        ? `http://127.0.0.1:${failing.address().port}/v1`
        : undefined;
  const { child, key } = await startGateway(upstreamUrl, failingUrl);
  await waitReady(`http://127.0.0.1:${GATEWAY_PORT}/health`);
  const targets = failingUrl ? ['direct', 'gateway', 'failover'] : ['direct', 'gateway'];
  const results = Object.fromEntries(targets.map((target) => [target, []]));
  try {
    // Warm both paths (JIT, connection pools, key cache) before measuring.
    await Promise.all([fetch(`${upstreamUrl}/chat/completions`, { method: 'POST', body: '{}' })]);
    if (failingUrl) {
      // The failover model must really pay one failover per request, or its figures mean nothing.
      const probe = await fetch(`http://127.0.0.1:${GATEWAY_PORT}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'failover', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await probe.text();
      if (probe.headers.get('x-gateway-attempts') !== '2')
        throw new Error(
          `failover model answered in ${probe.headers.get('x-gateway-attempts')} attempt(s)`,
        );
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const result =
          target === 'direct'
            ? await load(`${upstreamUrl}/chat/completions`, { authorization: 'Bearer sk-bench' })
            : await load(
                `http://127.0.0.1:${GATEWAY_PORT}/v1/chat/completions`,
                { authorization: `Bearer ${key}` },
                target === 'failover' ? 'failover' : 'alpha-k3',
              );
        const failures = result.errors + result.timeouts + result.non2xx;
        if (failures > 0) throw new Error(`${target}: ${failures} failed requests`);
        results[target].push({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
        });
      }
    }
  } finally {
    child.kill('SIGTERM');
    upstream.close();
    failing?.close();
  }
  const summary = (target) => ({
    rps: median(results[target].map((r) => r.rps)),
    p50: median(results[target].map((r) => r.p50)),
    p99: median(results[target].map((r) => r.p99)),
  });
  const direct = summary('direct');
  const gateway = summary('gateway');
  const shape = STREAM
    ? `streamed, ${STREAM_CHUNKS} chunks ${STREAM_DELAY_MS} ms apart`
    : 'non-streaming';
  console.log(
    `\n${shape}; database: ${DATABASE_URL ? 'external Postgres' : 'embedded PGlite'}; upstream latency ${LATENCY_MS} ms, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s (medians)`,
  );
  const failover = failingUrl ? summary('failover') : undefined;
  console.table(
    failover ? { direct, gateway, [`failover (${FAILOVER})`]: failover } : { direct, gateway },
  );
  console.log(
    `gateway/direct: throughput ${(gateway.rps / direct.rps).toFixed(3)}, p50 latency ${(gateway.p50 / direct.p50).toFixed(3)}, p99 latency ${(gateway.p99 / direct.p99).toFixed(3)}`,
  );
  console.log(`gateway overhead at the median: ${(gateway.p50 - direct.p50).toFixed(1)} ms`);
  if (failover)
    console.log(
      `added latency of one failover (${FAILOVER}) at the median: ${(failover.p50 - gateway.p50).toFixed(1)} ms, p99: ${(failover.p99 - gateway.p99).toFixed(1)} ms`,
    );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
