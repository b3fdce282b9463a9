#!/usr/bin/env node
// `npm run bench` (docs/performance.md): what the gateway adds to a request, measured in one run
// against a minimal Express + undici proxy (floor-proxy.js) and the same proxy as a Nest
// controller (nest-floor-proxy.js), all sending to one fake OpenAI upstream (fake-upstream.js).
//
// Each target runs pinned to one core (BENCH_TARGET_CPU, 1) with start:prod's runtime; the load
// and the upstream share the other (BENCH_LOAD_CPU, 0). The gateway runs with everything on: key
// auth, limits checked and never reached, validation, usage records (BENCH_DATABASE_URL, or the
// embedded PGlite), JSON logs at the production level to a file, metrics; with BENCH_REDIS_URL a
// second gateway on Redis counters.
//
// Order: idle RSS; paired rounds of JSON, then of streams (requests.js: every target in turn
// within seconds, so that each round's ratio to the floor is taken on one VM speed); each target
// topped up to BENCH_MIN_REQUESTS served, then BENCH_HOLD_STREAMS held at once and its peak RSS;
// then the gateway's /v1/messages and /v1/responses (stored) each against its own
// /v1/chat/completions, the same request translated for the same upstream, and its
// /v1/embeddings (100 inputs) against the floor's (BENCH_MESSAGES_ROUNDS, BENCH_RESPONSES_ROUNDS,
// BENCH_EMBEDDINGS_ROUNDS; 0: none); last, start-up (startup.js). Output: tables on stdout and
// BENCH_OUTPUT.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Agent, request } = require('undici');
const stats = require('./process-stats');
const requests = require('./requests');
const { startFloor, startGateway } = require('./targets');
const { spawnFakeUpstream } = require('./fake-upstream');
const { describeStartup, measureStartup } = require('./startup');

const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const TARGET_CPU = env.BENCH_TARGET_CPU ?? '1';
if (stats.reRunPinned(__filename, [], env.BENCH_LOAD_CPU ?? '0')) return;

const number = (name, full, quick = full) => Number(env[name] ?? (QUICK ? quick : full));
const settings = {
  rounds: number('BENCH_ROUNDS', 20, 4),
  roundS: number('BENCH_ROUND_S', 1.5),
  warmS: number('BENCH_WARM_S', 0.5),
  sequential: number('BENCH_SEQUENTIAL', 100, 50),
  connections: number('BENCH_CONNECTIONS', 32),
  upstreamLatencyMs: number('BENCH_UPSTREAM_LATENCY_MS', 1),
  chunks: number('BENCH_STREAM_CHUNKS', 50),
  minRequests: number('BENCH_MIN_REQUESTS', 10_000),
  holdStreams: number('BENCH_HOLD_STREAMS', 1000),
  idleSettleMs: number('BENCH_IDLE_SETTLE_MS', 15_000),
  startupRounds: number('BENCH_STARTUP_ROUNDS', 5, 1),
  messagesRounds: number('BENCH_MESSAGES_ROUNDS', 10, 2),
  responsesRounds: number('BENCH_RESPONSES_ROUNDS', 10, 2),
  embeddingsRounds: number('BENCH_EMBEDDINGS_ROUNDS', 10, 2),
  database: env.BENCH_DATABASE_URL ? 'external Postgres' : 'embedded PGlite',
};
const OUTPUT = env.BENCH_OUTPUT ?? join(__dirname, '..', '..', 'bench-results.json');

/** `count` streams open at once; each must end with [DONE]. */
async function hold(target, count) {
  const timeouts = { headersTimeout: 60_000, bodyTimeout: 60_000 };
  const dispatcher = new Agent({ connections: count + 10, ...timeouts });
  const { url, ...held } = requests.requestOf(target, true, 'bench-hold');
  const options = { ...held, dispatcher };
  const results = await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const answer = await request(url, options);
        let text = '';
        for await (const chunk of answer.body) text = (text + chunk.toString()).slice(-64);
        return answer.statusCode === 200 && text.includes('[DONE]');
      } catch {
        return false;
      }
    }),
  );
  await dispatcher.close();
  return results.filter((ok) => !ok).length;
}

/**
 * Paired rounds of one shape over the targets, the first the reference, with the upstream timed
 * alone; `load` overrides the settings' rounds, roundS or connections.
 */
function pairedRounds(targets, stream, direct, label = '', load = {}) {
  const options = { ...settings, ...load, stream, direct };
  const shape = stream ? 'streams' : 'JSON';
  const afterRound = (round) =>
    process.stderr.write(`${label}${shape} round ${round + 1}/${options.rounds}\n`);
  return requests.runPairedRounds(targets, { ...options, afterRound });
}

/**
 * One shape's rows: per target its median over rounds and, beside the floor's, the median of the
 * rounds' ratios to it (with the interquartile range) or of the rounds' differences to it.
 */
function shapeRows(targets, result, stream, connections = settings.connections) {
  const what = stream ? `${settings.chunks}-chunk stream` : 'JSON request';
  const ratio = (perTarget, index) => {
    const { ratioMedian, ratioIqr } = stats.ratioToFirst(perTarget, index);
    return `${ratioMedian.toFixed(2)} (IQR ${ratioIqr.map((r) => r.toFixed(2)).join('-')})`;
  };
  const difference = (perTarget, index) => {
    const d = stats.againstFirst(perTarget, index).differenceMedian;
    return `${targets[0].name} ${d >= 0 ? '+' : '-'} ${Math.abs(d).toFixed(2)}`;
  };
  const added = result.p50.map((rounds) => rounds.map((p50, round) => p50 - result.direct[round]));
  return [
    [`CPU per ${what} (ms)`, result.cpu, ratio],
    [`${stream ? 'streams' : 'JSON requests'}/s, concurrency ${connections}`, result.rps, ratio],
    [
      `${stream ? 'stream' : 'JSON'} p99 at concurrency ${connections} (ms)`,
      result.p99Loaded,
      ratio,
    ],
    [`added ${stream ? 'time to first token' : 'p50'}, concurrency 1 (ms)`, added, difference],
  ].map(([metric, perTarget, compare]) => {
    const row = { metric };
    targets.forEach((target, index) => {
      row[target.name] = stats.median(perTarget[index]).toFixed(2);
      if (index > 0) row[`${target.name} / ${targets[0].name}`] = compare(perTarget, index);
    });
    return row;
  });
}

/**
 * A route against the same request on a reference, JSON and streams (or the route's `shapes`, at
 * its `load`):
 * the gateway's /v1/messages and /v1/responses against its /v1/chat/completions (issues 49 and
 * 50: CPU within 1.3x; for /v1/responses the store's write must not reach the first token), its
 * /v1/embeddings against the floor's (issue 51). No rounds: no rows.
 */
async function routeRows([reference, route], direct, rounds) {
  const rows = [];
  for (const stream of rounds > 0 ? (route.shapes ?? [false, true]) : []) {
    const load = { rounds, ...route.load };
    const result = await pairedRounds([reference, route], stream, direct, `${route.name} `, load);
    rows.push(...shapeRows([reference, route], result, stream, load.connections));
  }
  return rows;
}

function table(rows) {
  const columns = Object.keys(rows[0]);
  const widths = columns.map((c) =>
    Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)),
  );
  const line = (cells) => cells.map((cell, i) => String(cell ?? '').padEnd(widths[i])).join(' | ');
  return [
    line(columns),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map((r) => line(columns.map((c) => r[c]))),
  ].join('\n');
}

async function main() {
  const upstream = await spawnFakeUpstream();
  const targets = [];
  // Gateways serve `bench-embed` too (older builds, which bench:ab may start, would refuse it).
  const start = { upstreamUrl: upstream.url, cpu: TARGET_CPU, embeddings: true };
  const machineAtStart = stats.machineLine();
  try {
    targets.push({ name: 'floor', ...(await startFloor('floor', start)) });
    if (env.BENCH_NEST_FLOOR !== '0')
      targets.push({ name: 'nest floor', ...(await startFloor('nest-floor', start)) });
    const gateway = async (label, name, redisUrl) =>
      targets.push({ name: label, ...(await startGateway({ ...start, name, redisUrl })) });
    await gateway('gateway', 'gateway', '');
    if (env.BENCH_REDIS_URL) await gateway('gateway, Redis', 'gateway-redis', env.BENCH_REDIS_URL);
    // After V8's memory reducer has run: until then the young generation holds what start-up grew.
    await stats.sleep(settings.idleSettleMs);
    for (const target of targets) target.idleRss = stats.memory(target.pid).rss;
    for (const target of targets) {
      await requests.sequential(target, false, 200);
      await requests.sequential(target, true, 50);
    }
    const direct = { base: upstream.url, key: 'sk-bench' };
    const json = await pairedRounds(targets, false, direct);
    for (const target of targets) target.rssAfterJson = stats.memory(target.pid).rss;
    const streams = await pairedRounds(targets, true, direct);
    for (const [index, target] of targets.entries()) {
      target.rssAfterStreams = stats.memory(target.pid).rss;
      target.served = json.served[index] + streams.served[index] + 250;
      target.errors = json.errors[index] + streams.errors[index];
      target.errors += json.sequentialErrors[index] + streams.sequentialErrors[index];
      while (target.served < settings.minRequests) {
        const run = await requests.saturate(target, { ...settings, stream: false, seconds: 2 });
        target.served += run.requests;
        target.errors += run.errors;
      }
      process.stderr.write(`holding ${settings.holdStreams} streams on ${target.name}\n`);
      target.holdErrors = await hold(target, settings.holdStreams);
      await stats.sleep(500);
      target.peakRss = stats.memory(target.pid).hwm;
    }
    const { ROUTES } = requests;
    const named = (target, name, route = {}) => ({ ...target, name, ...route });
    const gatewayTarget = targets.find((target) => target.name === 'gateway');
    const chat = named(gatewayTarget, 'chat completions');
    // The same body suits both APIs (model, messages, max_tokens, stream), and so does the key.
    const messagesRoute = named(gatewayTarget, '/v1/messages', { path: '/messages' });
    const messages = await routeRows([chat, messagesRoute], direct, settings.messagesRounds);
    const responsesRoute = named(gatewayTarget, '/v1/responses', ROUTES.responses);
    const responses = await routeRows([chat, responsesRoute], direct, settings.responsesRounds);
    const embed = (target, name) => named(target, `${name} /v1/embeddings`, ROUTES.embeddings);
    const embedRoutes = [embed(targets[0], 'floor'), embed(gatewayTarget, 'gateway')];
    const rounds = settings.embeddingsRounds;
    const embeddings = await routeRows(embedRoutes, embed(direct, 'upstream'), rounds);
    await Promise.all(targets.map((target) => stats.stopChild(target.child)));
    const startup =
      settings.startupRounds > 0 ? await measureStartup(settings.startupRounds) : null;

    const memoryRow = (metric, pick) =>
      Object.fromEntries([['metric', metric], ...targets.map((t) => [t.name, pick(t)])]);
    const rows = [
      ...shapeRows(targets, json, false),
      ...shapeRows(targets, streams, true),
      memoryRow('idle RSS (MiB)', (t) => t.idleRss.toFixed(0)),
      memoryRow(
        'RSS after the JSON rounds / the stream rounds (MiB)',
        (t) => `${t.rssAfterJson.toFixed(0)} / ${t.rssAfterStreams.toFixed(0)}`,
      ),
      memoryRow(
        `peak RSS after the requests served and ${settings.holdStreams} held streams (MiB)`,
        (t) => t.peakRss.toFixed(0),
      ),
      memoryRow('requests served before the held streams', (t) => t.served),
      memoryRow(`${settings.holdStreams} held streams: errors`, (t) => t.holdErrors),
      memoryRow('errors under load and one at a time', (t) => t.errors),
    ];
    const directP50 = stats.median(json.direct);
    const directTtft = stats.median(streams.direct);
    console.log(
      `\nupstream ${settings.upstreamLatencyMs} ms (direct p50 ${directP50.toFixed(2)} ms, time to first token ${directTtft.toFixed(2)} ms), ` +
        `streams of ${settings.chunks} chunks; ${settings.rounds} paired rounds per shape, each target ${settings.warmS} s unrecorded + ${settings.roundS} s at concurrency ${settings.connections}, ` +
        `then ${settings.sequential} one at a time; database ${settings.database}; targets on CPU ${TARGET_CPU}; medians over rounds, "/ floor" the median of the rounds' ratios or differences\n`,
    );
    console.log(table(rows));
    for (const routes of [messages, responses, embeddings])
      if (routes.length > 0) console.log(`\n${table(routes)}`);
    if (startup) console.log(`\n${describeStartup(startup)}`);
    const machine = { atStart: machineAtStart, atEnd: stats.machineLine() };
    console.log(
      `\nmachine at the start: ${machine.atStart}\nmachine at the end:   ${machine.atEnd}`,
    );
    // eslint-disable-next-line no-unused-vars
    const raw = targets.map(({ child, pid, base, key, ...figures }) => figures);
    const output = { settings, machine, rows, messages, responses, embeddings, startup };
    Object.assign(output, { json, streams, raw });
    writeFileSync(OUTPUT, JSON.stringify({ date: new Date(), ...output }, null, 2));
    console.log(`\nwritten to ${OUTPUT}`);
  } finally {
    await Promise.all([
      ...targets.map((t) => stats.stopChild(t.child)),
      stats.stopChild(upstream.child),
    ]);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
