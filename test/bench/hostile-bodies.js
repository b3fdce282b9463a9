#!/usr/bin/env node
// How long the gateway takes to read hostile 1 MiB request bodies (wide, deep and long values in
// logit_bias, tools, messages and an unknown field), and whether a small request waits behind
// them. It boots the built gateway in this process (embedded database, mock model) and reports,
// per body, the status and the median over HOSTILE_RUNS (5) requests of the process CPU time
// (process.cpuUsage) and wall time around one request. Run after
// `npm run build`:   node test/bench/hostile-bodies.js
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { removeBenchFolder } = require('./process-stats');

const ROOT = join(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'gateway-hostile-'));
writeFileSync(join(dir, 'gateway.yaml'), 'models:\n  mock-model:\n    - provider: mock\n');
Object.assign(process.env, {
  GATEWAY_CONFIG: join(dir, 'gateway.yaml'),
  GATEWAY_DATA_DIR: join(dir, 'data'),
  DATABASE_URL: '',
  DB_MIGRATE_ON_START: 'true',
  LOG_LEVEL: 'error',
  KEY_RPM_LIMIT: '0',
  MOCK_LATENCY_MS: '0',
});

const MiB = 1024 * 1024;
const RUNS = Number(process.env.HOSTILE_RUNS ?? 5);
const base = { model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] };
/** `{"0":1,"1":1,...}` with as many keys as fit in `bytes`. */
const wideText = (bytes) => {
  const parts = [];
  for (let i = 0, size = 2; size < bytes; i++) {
    const part = `"${i}":1`;
    parts.push(part);
    size += part.length + 1;
  }
  return `{${parts.join(',')}}`;
};
const deepText = (levels) => '['.repeat(levels) + ']'.repeat(levels);
const longText = (bytes) =>
  `[${Array(Math.floor(bytes / 2))
    .fill('0')
    .join(',')}]`;
/** `base` with `field` set to raw JSON, keeping the whole body under 1 MiB. */
const withRaw = (field, raw) => JSON.stringify(base).replace(/}$/, `,"${field}":${raw}}`);
const room = MiB - 200;

const BODIES = {
  'small request': JSON.stringify(base),
  'logit_bias: 1 object, ~110k keys': withRaw('logit_bias', wideText(room)),
  'unknown field: 1 object, ~110k keys': withRaw('x_unknown', wideText(room)),
  'unknown field: nested 500k levels': withRaw('x_unknown', deepText(room / 2)),
  'unknown field: array of 500k numbers': withRaw('x_unknown', longText(room)),
  'tools: parameters with ~110k keys': withRaw(
    'tools',
    `[{"type":"function","function":{"name":"f","parameters":${wideText(room - 100)}}}]`,
  ),
  'tools: nested 500k levels': withRaw(
    'tools',
    `[{"type":"function","function":{"name":"f","parameters":${deepText(room / 2 - 100)}}}]`,
  ),
  'messages: 1 message nested 500k levels': JSON.stringify(base).replace(
    '"hi"}',
    `"hi","x":${deepText(room / 2 - 100)}}`,
  ),
  'messages: [[...]] nested 500k levels': JSON.stringify({ model: 'mock-model' }).replace(
    /}$/,
    `,"messages":${deepText(room / 2)}}`,
  ),
  'messages: 9,999 messages': JSON.stringify({
    ...base,
    messages: Array.from({ length: 9999 }, (_, i) => ({
      role: 'user',
      content: `m${i}`.padEnd(60, '.'),
    })),
  }),
  'messages: 30k messages': JSON.stringify({
    ...base,
    messages: Array.from({ length: 30000 }, () => ({ role: 'user', content: 'x' })),
  }),
  'messages: 1 content array of 9,999 parts': JSON.stringify({
    ...base,
    messages: [
      { role: 'user', content: Array.from({ length: 9999 }, () => ({ type: 'text', text: '' })) },
    ],
  }),
};

async function main() {
  require(join(ROOT, 'node_modules', 'reflect-metadata'));
  const { NestFactory } = require(join(ROOT, 'node_modules', '@nestjs', 'core'));
  const { AppModule } = require(join(ROOT, 'dist', 'app.module'));
  const { loadAppConfig } = require(join(ROOT, 'dist', 'config', 'app-config'));
  const { configureApp } = require(join(ROOT, 'dist', 'app.setup'));
  const { VirtualKeyService } = require(join(ROOT, 'dist', 'keys', 'virtual-key.service'));
  const app = await NestFactory.create(AppModule.forRoot(loadAppConfig(process.env)), {
    bodyParser: false,
    logger: ['error'],
  });
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${app.getHttpServer().address().port}/v1/chat/completions`;
  const { secret } = await app.get(VirtualKeyService).create({ name: `hostile-${Date.now()}` });
  const post = async (body) => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    return { status: response.status, ms: performance.now() - started, text };
  };

  await post(BODIES['small request']); // warm-up: key cache, JIT
  console.log(
    'body'.padEnd(42),
    'KiB'.padStart(6),
    'status',
    'cpu ms'.padStart(8),
    'wall ms'.padStart(8),
    ' answer',
  );
  for (const [name, body] of Object.entries(BODIES)) {
    if (RUNS > 1) await post(body); // warm-up of this shape
    // The median of several, as other processes share the machine.
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const before = process.cpuUsage();
      const result = await post(body);
      const used = process.cpuUsage(before);
      runs.push({ ...result, cpuMs: (used.user + used.system) / 1000 });
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const { status, text } = runs[0];
    const cpu = median(runs.map((r) => r.cpuMs));
    const ms = median(runs.map((r) => r.ms));
    const answer = status === 200 ? 'completion' : JSON.parse(text).error?.message?.slice(0, 70);
    console.log(
      name.padEnd(42),
      (Buffer.byteLength(body) / 1024).toFixed(0).padStart(6),
      String(status).padStart(6),
      cpu.toFixed(1).padStart(8),
      ms.toFixed(1).padStart(8),
      '',
      answer,
    );
  }

  // A small request sent while four hostile bodies are being read.
  const hostile = Object.entries(BODIES)
    .filter(([name]) => name !== 'small request')
    .slice(0, 4)
    .map(([, body]) => body);
  const pending = hostile.map((body) => post(body));
  await new Promise((resolve) => setTimeout(resolve, 5));
  const small = await post(BODIES['small request']);
  const others = await Promise.all(pending);
  console.log(
    `\nsmall request during 4 hostile ones: ${small.status} in ${small.ms.toFixed(1)} ms; slowest hostile one: ${Math.max(...others.map((o) => o.ms)).toFixed(1)} ms`,
  );
  await app.close();
  // Kept when the run failed, for what is in it.
  removeBenchFolder(dir);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
