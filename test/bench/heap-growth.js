#!/usr/bin/env node
// `npm run bench:heap` (docs/performance.md, "Does the heap grow: `npm run bench:heap`"): whether
// anything the gateway keeps grows with the requests it serves. The built gateway (start:prod's
// runtime, `npm run bench`'s settings: key auth, limits, usage records, logs, metrics) runs on the
// targets' core with heap-probe.js preloaded; between readings it serves HEAP_JSON JSON requests
// and HEAP_STREAMS 50-event streams at concurrency BENCH_CONNECTIONS from the fake upstream; at
// each reading the probe runs three full collections and reports the heap. With
// HEAP_SNAPSHOT_DIR, heap snapshots at the third reading (the second of three) and the last, and what differs between
// them by object type and constructor: V8's own objects (compiled code, its weak lists) against
// the application's. A snapshot takes memory of its own: RSS after the first one is not the
// gateway's (compare RSS in a run without snapshots).
//
// Settings: HEAP_READINGS (14), HEAP_JSON (20000), HEAP_STREAMS (4000), BENCH_CONNECTIONS (32),
// BENCH_DATABASE_URL (embedded PGlite without it), BENCH_REDIS_URL (Redis counters), BENCH_TARGET_CPU
// (1), BENCH_LOAD_CPU (0). Output: a table on stdout and HEAP_OUTPUT (heap-growth.json).
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { createFakeUpstream } = require('./fake-upstream');
const { reRunPinned, sleep } = require('./process-stats');
const { chatBody, chatHeaders } = require('./requests');
const { startTargets, stopTargets } = require('./targets');

const ROOT = join(__dirname, '..', '..');
const env = process.env;
const READINGS = Number(env.HEAP_READINGS ?? 14);
const JSON_REQUESTS = Number(env.HEAP_JSON ?? 20_000);
const STREAMS = Number(env.HEAP_STREAMS ?? 4_000);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const SNAPSHOT_DIR = env.HEAP_SNAPSHOT_DIR;
const OUTPUT = env.HEAP_OUTPUT ?? join(ROOT, 'heap-growth.json');
const MB = 1e6;
// Two halves to compare, each of two readings at least.
if (!(READINGS >= 3)) throw new Error(`HEAP_READINGS must be 3 or more, not ${env.HEAP_READINGS}`);
// The first snapshot after the start's own growth has settled; the last at the end.
const SNAPSHOT_READINGS = [Math.min(3, READINGS - 1), READINGS];

/** Sends `amount` requests, CONNECTIONS at a time; every one must be answered 2xx. */
function load(gateway, amount, stream) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${gateway.base}/chat/completions`,
        method: 'POST',
        headers: chatHeaders(gateway.key),
        body: chatBody('bench-model', stream),
        connections: CONNECTIONS,
        amount,
      },
      (error, result) => {
        const failed = error ? 0 : result.errors + result.timeouts + result.non2xx;
        if (error || failed) reject(error ?? new Error(`${failed} of ${amount} requests failed`));
        else resolve();
      },
    ),
  );
}

/** Signals the probe and waits for its line, the file's `reading`th (a snapshot takes seconds). */
async function read(gateway, probeFile, reading) {
  process.kill(gateway.pid, 'SIGWINCH');
  for (let waited = 0; waited < 120_000; waited += 100) {
    await sleep(100);
    const lines = readFileSync(probeFile, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= reading) return JSON.parse(lines[reading - 1]);
  }
  throw new Error(`no heap reading ${reading} from the gateway`);
}

/** Self size and count per (node type, name) of a heap snapshot; strings and code in one bucket each. */
function snapshotSummary(file) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const summary = new Map();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + typeAt]];
    const lumped = /string|code|number/.test(type);
    const key = lumped ? `(${type})` : `${type}: ${strings[nodes[i + nameAt]].slice(0, 60)}`;
    const entry = summary.get(key) ?? { size: 0, count: 0 };
    entry.size += nodes[i + sizeAt];
    entry.count++;
    summary.set(key, entry);
  }
  return summary;
}

/** The kinds of object whose self size changed most between two snapshots. */
function snapshotDiff(before, after, top = 12) {
  const a = snapshotSummary(before);
  const b = snapshotSummary(after);
  const none = { size: 0, count: 0 };
  return [...new Set([...a.keys(), ...b.keys()])]
    .map((kind) => ({
      kind,
      bytes: (b.get(kind) ?? none).size - (a.get(kind) ?? none).size,
      objects: (b.get(kind) ?? none).count - (a.get(kind) ?? none).count,
    }))
    .filter(({ bytes, objects }) => bytes !== 0 || objects !== 0)
    .sort((x, y) => Math.abs(y.bytes) - Math.abs(x.bytes))
    .slice(0, top);
}

async function main() {
  if (reRunPinned(__filename, process.argv.slice(2), env.BENCH_LOAD_CPU ?? '0')) return;
  const dir = mkdtempSync(join(tmpdir(), 'gateway-heap-'));
  const probeFile = join(dir, 'probe.jsonl');
  writeFileSync(probeFile, '');
  const upstream = createFakeUpstream();
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  let targets = [];
  try {
    targets = await startTargets([ROOT], {
      upstreamUrl: `http://127.0.0.1:${upstream.address().port}/v1`,
      env,
      prefix: 'heap',
      nodeArgs: ['--expose-gc', '-r', join(__dirname, 'heap-probe.js')],
      extraEnv: {
        HEAP_PROBE_OUT: probeFile,
        ...(SNAPSHOT_DIR
          ? {
              HEAP_PROBE_SNAPSHOT_DIR: SNAPSHOT_DIR,
              HEAP_PROBE_SNAPSHOT_READINGS: SNAPSHOT_READINGS.join(','),
            }
          : {}),
      },
    });
    const [gateway] = targets;
    const readings = [];
    let served = 0;
    for (let reading = 1; reading <= READINGS; reading++) {
      await load(gateway, JSON_REQUESTS, false);
      await load(gateway, STREAMS, true);
      served += JSON_REQUESTS + STREAMS;
      // Usage rows wait up to a second for their batch: the reading comes after they are written.
      await sleep(1500);
      const line = await read(gateway, probeFile, reading);
      readings.push({ ...line, served });
      console.error(
        `reading ${reading}/${READINGS}: ${served} requests, heap ${(line.heapUsed / MB).toFixed(2)} MB`,
      );
    }
    const snapshots = SNAPSHOT_READINGS.map((n) => readings[n - 1]?.snapshot).filter(Boolean);
    const diff = snapshots.length === 2 ? snapshotDiff(...snapshots) : undefined;
    const half = Math.floor(READINGS / 2);
    const perRequest = (from, to) =>
      (readings[to].heapUsed - readings[from].heapUsed) /
      (readings[to].served - readings[from].served);
    const summary = {
      counters: env.BENCH_REDIS_URL ? 'redis' : 'memory',
      bytesPerRequestFirstHalf: perRequest(0, half),
      bytesPerRequestSecondHalf: perRequest(half, READINGS - 1),
    };
    writeFileSync(OUTPUT, JSON.stringify({ summary, readings, snapshotDiff: diff }, null, 2));
    console.log(`${summary.counters} counters, after three full collections at each reading:\n`);
    console.log('| reading | requests served | heap used (MB) | external (MB) | RSS (MiB) |');
    console.log('|---|---|---|---|---|');
    for (const r of readings)
      console.log(
        `| ${r.reading} | ${r.served} | ${(r.heapUsed / MB).toFixed(2)} | ${(r.external / MB).toFixed(2)} | ${(r.rss / 1048576).toFixed(1)} |`,
      );
    console.log(
      `\nheap growth per request served: ${summary.bytesPerRequestFirstHalf.toFixed(2)} bytes between readings 1 and ${half + 1}, ${summary.bytesPerRequestSecondHalf.toFixed(2)} between ${half + 1} and ${READINGS}`,
    );
    if (diff) {
      console.log(
        `\nlargest changes between the snapshots of readings ${SNAPSHOT_READINGS.join(' and ')}:\n`,
      );
      console.log('| kind | bytes | objects |');
      console.log('|---|---|---|');
      for (const d of diff) console.log(`| ${d.kind} | ${d.bytes} | ${d.objects} |`);
    }
  } finally {
    await stopTargets(targets);
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
