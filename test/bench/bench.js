#!/usr/bin/env node
// `npm run bench` (docs/performance.md): what the gateway adds to a request, measured in one run
// against a minimal Express + undici proxy (floor-proxy.js), both sending to the same fake
// OpenAI upstream (fake-upstream.js) on loopback.
//
// Each target under test runs pinned to one core (`taskset -c BENCH_TARGET_CPU`, default 1); the
// load generator and the upstream share the other one (BENCH_LOAD_CPU, default 0). Targets: the
// floor, the gateway with memory counters and, with BENCH_REDIS_URL, the gateway with Redis
// counters; and the design's floor (nest-floor-proxy.js: the floor's work inside a Nest
// controller with a guard and an interceptor; BENCH_NEST_FLOOR=0 leaves it out;
// BENCH_STABLE_FLOOR=1 adds both floors on the gateway's stable-prototype HTTP server, "Ninth
// pass"). The gateway runs with everything on: key auth, a request limit and a token budget that
// are checked but never reached, body validation, usage records (BENCH_DATABASE_URL, or the
// embedded PGlite), JSON logs at the production level (`log`) to a file, metrics.
//
// Rounds are interleaved (every scenario on every target, then the next round), so drift over
// the whole run falls on every target alike (drift within a round does not: the paired rounds
// below); figures are medians over rounds. Each target's round starts with BENCH_WARMUP (3) seconds of
// JSON and then of streams at concurrency 32, reported apart as "after idle" (the target idled
// while the others ran; docs/performance.md, "Tenth pass"). Then: JSON at concurrency 1 (own
// undici client, added p50 and p99 against the upstream called directly), JSON at concurrency 32 (autocannon: req/s,
// latency, CPU per request from /proc/<pid>/stat), streams of UPSTREAM_CHUNKS events at
// concurrency 1 (added time to first token) and 32 (streams/s, CPU per stream), and finally
// BENCH_HOLD_STREAMS (1000) streams held open at once. Memory: RSS 2 s after the last target
// started, idle RSS BENCH_IDLE_SETTLE_MS (13 s) later, VmRSS after each round (growth), VmHWM
// (peak) at the end.
//
// A target's round takes about 25 s, so the rounds compare the gateway with the floor minutes
// apart, and on a VM whose speed drifts between minutes their ratios can mislead. After them,
// paired rounds (pairedRounds(), as `npm run bench:ab` runs them) compare the floor, the Nest
// floor, the baseline and the gateways seconds apart: BENCH_PAIRED_ROUNDS (20) rounds, every
// target in turn, alternating order, each BENCH_PAIRED_ROUND_S (1.5) s at concurrency 32 and then
// BENCH_PAIRED_SEQUENTIAL (100) requests one at a time; per round each target's CPU per request
// divided by the floor's, and its p50 or time to first token less the floor's, and the medians of
// those. JSON, then streams. Each target idles while the others run, over 8 s with four of them,
// and past about 8 s V8's memory reducer makes the next seconds dearer ("Tenth pass"): every
// measured turn comes right after BENCH_PAIRED_WARM_S (0.5) s of unrecorded load, so each round
// measures a loaded process, as the main rounds do after their "after idle" runs. The stable
// floors are left out, which keeps the turns closer together. BENCH_PAIRED_ROUNDS=0: no paired
// rounds.
//
// BENCH_BASELINE=DIR adds another build of the gateway (a checkout of an earlier commit, built)
// as the target `baseline`, for before/after figures from one run (on BENCH_BASELINE_DATABASE_URL
// when set, else on the same database).
//
// Output: a table on stdout and BENCH_OUTPUT (bench-results.json). BENCH_QUICK=1: shorter rounds
// (about 3 minutes in all with the two default floors). BENCH_PROFILE=DIR: no comparison; CPU
// profiles of the Nest floor (with BENCH_STABLE_FLOOR=1 the stable one) and the gateway under
// JSON and stream load into DIR (profile()).
//
// Every target runs as `npm run start:prod` runs the gateway (start-runtime.js: MALLOC_ARENA_MAX
// and node's flags), the floors included; BENCH_RUNTIME=plain runs them all as plain `node`,
// BENCH_BASELINE_RUNTIME=plain the baseline only.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Agent, request } = require('undici');
const {
  againstFirst,
  median,
  memory,
  ratioToFirst,
  reRunPinned,
  sleep,
  stopChild,
} = require('./process-stats');
const { PLAIN_RUNTIME, inheritedEnv, runtimeFor } = require('./start-runtime');
const { startBenchGateway } = require('./bench-gateway');
const { chatBody, chatHeaders, saturate: saturateFor, sequential } = require('./requests');
const { startFloor } = require('./floors');
const { spawnFakeUpstream } = require('./fake-upstream');
const { runPairedRounds } = require('./paired-rounds');
const { describeMachine, watchMachine } = require('./machine');

const ROOT = join(__dirname, '..', '..');
const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const TARGET_CPU = env.BENCH_TARGET_CPU ?? '1';
const LOAD_CPU = env.BENCH_LOAD_CPU ?? '0';

if (reRunPinned(__filename, [], LOAD_CPU)) return;

const settings = {
  quick: QUICK,
  rounds: Number(env.BENCH_ROUNDS ?? (QUICK ? 2 : 3)),
  durationS: Number(env.BENCH_DURATION ?? (QUICK ? 3 : 8)),
  warmupS: Number(env.BENCH_WARMUP ?? 3),
  concurrency: Number(env.BENCH_CONNECTIONS ?? 32),
  sequentialRequests: Number(env.BENCH_SEQUENTIAL ?? (QUICK ? 300 : 1000)),
  sequentialStreams: Number(env.BENCH_SEQUENTIAL_STREAMS ?? (QUICK ? 100 : 300)),
  upstreamLatencyMs: Number(env.BENCH_UPSTREAM_LATENCY_MS ?? 1),
  chunks: Number(env.BENCH_STREAM_CHUNKS ?? 50),
  chunkDelayMs: Number(env.BENCH_STREAM_DELAY_MS ?? 0),
  holdStreams: Number(env.BENCH_HOLD_STREAMS ?? 1000),
  holdChunks: Number(env.BENCH_HOLD_CHUNKS ?? 20),
  holdDelayMs: Number(env.BENCH_HOLD_DELAY_MS ?? 100),
  pairedRounds: Number(env.BENCH_PAIRED_ROUNDS ?? (QUICK ? 4 : 20)),
  pairedRoundS: Number(env.BENCH_PAIRED_ROUND_S ?? 1.5),
  pairedWarmS: Number(env.BENCH_PAIRED_WARM_S ?? 0.5),
  pairedSequential: Number(env.BENCH_PAIRED_SEQUENTIAL ?? (QUICK ? 50 : 100)),
  database: env.BENCH_DATABASE_URL ? 'external Postgres' : 'embedded PGlite',
  redis: Boolean(env.BENCH_REDIS_URL),
  baseline: env.BENCH_BASELINE ?? null,
  targetCpu: TARGET_CPU,
  loadCpu: LOAD_CPU,
};
// The runtime of every target, floors included (see the header), and of the baseline.
const RUNTIME = runtimeFor(ROOT, env.BENCH_RUNTIME);
const BASELINE_RUNTIME = env.BENCH_BASELINE_RUNTIME === 'plain' ? PLAIN_RUNTIME : RUNTIME;
settings.runtime = RUNTIME;
settings.baselineRuntime = BASELINE_RUNTIME;
const INHERITED = inheritedEnv(env);
const OUTPUT = env.BENCH_OUTPUT ?? join(ROOT, 'bench-results.json');
const PROFILE_DIR = env.BENCH_PROFILE ?? '';
const IDLE_SETTLE_MS = Number(env.BENCH_IDLE_SETTLE_MS ?? 13_000);

const describeRuntime = ({ env: vars, nodeArgs }) =>
  [...Object.entries(vars).map(([name, value]) => `${name}=${value}`), ...nodeArgs].join(' ') ||
  'plain';

/** A table cell: value / base to two decimals, or empty where either is not a number. */
const ratio = (value, base) =>
  typeof value === 'number' && typeof base === 'number' && base !== 0
    ? (value / base).toFixed(2)
    : '';

/** Floor `floor` (a name in floors.js) on the targets' core, as the target `name`. */
async function startFloorTarget(name, floor, upstreamUrl, children, nodeArgs = []) {
  const target = await startFloor(floor, {
    upstreamUrl,
    cpu: TARGET_CPU,
    runtime: RUNTIME,
    inherited: INHERITED,
    nodeArgs,
  });
  children.push(target.child);
  return { ...target, name };
}

/** A built gateway (`root`: a checkout after `npm run build`) on the targets' core, as a target. */
async function startGateway(
  name,
  upstreamUrl,
  extraEnv,
  { nodeArgs = [], root = ROOT, databaseUrl = env.BENCH_DATABASE_URL, runtime = RUNTIME } = {},
) {
  const gateway = await startBenchGateway({
    root,
    name,
    upstreamUrl,
    cpu: TARGET_CPU,
    runtime,
    inherited: INHERITED,
    extraEnv,
    databaseUrl,
    nodeArgs,
  });
  return { ...gateway, name };
}

/** Saturation at BENCH_CONNECTIONS for `durationS` (requests.js's saturate). */
const saturate = (target, stream, durationS = settings.durationS) =>
  saturateFor(target, { stream, seconds: durationS, connections: settings.concurrency });

/**
 * Paired rounds of one shape (JSON, or streams with `stream`) over `targets`, the floor first
 * (see the header): for each target, CPU per request as a ratio to the floor's of the same
 * rounds (ratioToFirst) and one-at-a-time latency as a difference to the floor's (againstFirst,
 * p50 or time to first token), and the errors of all its runs, the unrecorded ones included; a
 * Map by target name. `machine`: machine.js's watcher, which runPairedRounds samples.
 */
async function pairedRounds(targets, stream, machine) {
  const { cpu, p50, errors, sequentialErrors } = await runPairedRounds(targets, {
    rounds: settings.pairedRounds,
    roundS: settings.pairedRoundS,
    warmS: settings.pairedWarmS,
    stream,
    connections: settings.concurrency,
    sequential: settings.pairedSequential,
    machine,
    beforeRound: (round) =>
      process.stderr.write(
        `paired ${stream ? 'streams' : 'JSON'} round ${round + 1}/${settings.pairedRounds}\n`,
      ),
  });
  return new Map(
    targets.map((target, index) => [
      target.name,
      {
        cpu: ratioToFirst(cpu, index),
        latency: againstFirst(p50, index),
        errors: errors[index] + sequentialErrors[index],
        rounds: { cpuMsPerRequest: cpu[index], sequentialP50: p50[index] },
      },
    ]),
  );
}

/** A paired ratio as its table cell: the median, then the interquartile range. */
const pairedRatioCell = ({ ratioMedian, ratioIqr }) =>
  `${ratioMedian.toFixed(2)} (IQR ${ratioIqr.map((r) => r.toFixed(2)).join('-')})`;

/** A paired latency difference as its table cell: `floor + 0.19`. */
const pairedDifferenceCell = ({ differenceMedian }) =>
  `floor ${differenceMedian >= 0 ? '+' : '-'} ${Math.abs(differenceMedian).toFixed(2)}`;

/** `count` streams open at once; each must end with [DONE]. */
async function hold(target, count) {
  const dispatcher = new Agent({
    connections: count + 10,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const url = `${target.base}/chat/completions`;
  const headers = chatHeaders(target.key);
  const body = chatBody('bench-hold', true);
  let open = 0;
  let peakOpen = 0;
  const results = await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const answer = await request(url, { method: 'POST', headers, body, dispatcher });
        open++;
        peakOpen = Math.max(peakOpen, open);
        let text = '';
        for await (const chunk of answer.body) text = (text + chunk.toString()).slice(-64);
        open--;
        return answer.statusCode === 200 && text.includes('[DONE]');
      } catch {
        return false;
      }
    }),
  );
  await dispatcher.close();
  return { streams: count, peakOpen, errors: results.filter((ok) => !ok).length };
}

function table(rows) {
  const columns = Object.keys(rows[0]);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((cell, i) => String(cell).padEnd(widths[i])).join(' | ');
  return [
    line(columns),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map((r) => line(columns.map((c) => r[c]))),
  ].join('\n');
}

/**
 * BENCH_PROFILE=DIR: no comparison, but one CPU profile per target and load shape (the Nest floor
 * and the gateway with memory counters; JSON and streams at the saturation concurrency), each in
 * its own process so the profiles do not mix. DIR/profiles.json names each profile with the
 * requests it served; `node test/bench/profile-summary.js FILE` summarises one profile and
 * `node test/bench/profile-diff.js DIR` compares the two targets per request.
 */
async function profile(upstreamUrl, children) {
  const index = {};
  const profileArgs = (name) => [
    '--cpu-prof',
    `--cpu-prof-dir=${PROFILE_DIR}`,
    `--cpu-prof-name=${name}.cpuprofile`,
    '-r',
    join(__dirname, 'exit-on-sigusr2.js'),
  ];
  for (const stream of [false, true]) {
    const shape = stream ? 'streams' : 'json';
    for (const targetName of ['nest-floor', 'gateway']) {
      const name = `${targetName}-${shape}`;
      let target;
      if (targetName === 'gateway') {
        target = await startGateway(
          name,
          upstreamUrl,
          { REDIS_URL: '' },
          {
            nodeArgs: profileArgs(name),
          },
        );
        children.push(target.child);
      } else {
        target = await startFloorTarget(
          name,
          // BENCH_STABLE_FLOOR=1: the Nest floor on the stable-prototype server, as the gateway's is.
          env.BENCH_STABLE_FLOOR === '1' ? 'nest-floor-stable' : 'nest-floor',
          upstreamUrl,
          children,
          profileArgs(name),
        );
      }
      await sequential(target, stream, 200);
      const result = await saturate(target, stream);
      console.log(`${name}: ${JSON.stringify(result)}`);
      index[name] = {
        file: `${name}.cpuprofile`,
        requests: result.requests,
        measuredS: settings.durationS,
      };
      await stopChild(target.child, 'SIGUSR2');
    }
  }
  writeFileSync(join(PROFILE_DIR, 'profiles.json'), JSON.stringify(index, null, 2));
  console.log(
    `profiles in ${PROFILE_DIR}; compare them with node test/bench/profile-diff.js ${PROFILE_DIR}`,
  );
}

async function main() {
  const upstream = await spawnFakeUpstream({
    UPSTREAM_LATENCY_MS: String(settings.upstreamLatencyMs),
    UPSTREAM_CHUNKS: String(settings.chunks),
    UPSTREAM_CHUNK_DELAY_MS: String(settings.chunkDelayMs),
    UPSTREAM_HOLD_CHUNKS: String(settings.holdChunks),
    UPSTREAM_HOLD_DELAY_MS: String(settings.holdDelayMs),
  });
  const upstreamUrl = upstream.url;
  const children = [upstream.child];
  const targets = [];
  try {
    if (PROFILE_DIR) return await profile(upstreamUrl, children);
    const machine = watchMachine(TARGET_CPU);
    const floors = [['floor', 'floor']];
    if (env.BENCH_NEST_FLOOR !== '0') floors.push(['nest floor', 'nest-floor']);
    for (const [name, floor] of floors) {
      targets.push(await startFloorTarget(name, floor, upstreamUrl, children));
      if (env.BENCH_STABLE_FLOOR === '1')
        targets.push({
          ...(await startFloorTarget(
            `${name}, stable prototypes`,
            `${floor}-stable`,
            upstreamUrl,
            children,
          )),
          // Left out of the paired rounds (see the header).
          stablePrototypes: true,
        });
    }
    if (env.BENCH_BASELINE) {
      // Before/after in one run: another build of the gateway, same settings, memory counters;
      // its own database when the two builds' migrations differ.
      const baseline = await startGateway(
        'baseline',
        upstreamUrl,
        { REDIS_URL: '' },
        {
          root: env.BENCH_BASELINE,
          databaseUrl: env.BENCH_BASELINE_DATABASE_URL ?? env.BENCH_DATABASE_URL,
          runtime: BASELINE_RUNTIME,
        },
      );
      children.push(baseline.child);
      targets.push(baseline);
    }
    const memoryGateway = await startGateway('gateway', upstreamUrl, { REDIS_URL: '' });
    children.push(memoryGateway.child);
    targets.push(memoryGateway);
    if (env.BENCH_REDIS_URL) {
      const redisGateway = await startGateway('gateway-redis', upstreamUrl, {
        REDIS_URL: env.BENCH_REDIS_URL,
        REDIS_KEY_PREFIX: `bench-${Date.now()}:`,
      });
      children.push(redisGateway.child);
      targets.push(redisGateway);
    }
    const direct = { name: 'direct', base: upstreamUrl, key: 'sk-bench' };
    await sleep(2000);
    for (const target of targets) target.startRss = memory(target.pid).rss;
    // Idle is after V8's memory reducer has run (about 8 s after start): until then the young
    // generation still holds the 32 MiB that start-up grew it to.
    await sleep(IDLE_SETTLE_MS);
    for (const target of targets) {
      target.idleRss = memory(target.pid).rss;
      target.rounds = [];
    }
    const directRounds = [];
    // Warm-up: JIT, pools, key caches.
    for (const target of targets) {
      await sequential(target, false, 200);
      await sequential(target, true, 50);
    }
    for (let round = 0; round < settings.rounds; round++) {
      process.stderr.write(`round ${round + 1}/${settings.rounds}\n`);
      directRounds.push({
        json: await sequential(direct, false, settings.sequentialRequests),
        stream: await sequential(direct, true, settings.sequentialStreams),
      });
      for (const target of targets) {
        // Each target has idled while the others ran, and V8's memory reducer, which runs in an
        // idle process, drops the hidden classes that optimised code depends on: the first
        // seconds of load after a pause recompile the hot path (docs/performance.md, "Tenth
        // pass"). One saturation run of each shape takes that, measured apart as `afterIdle`,
        // so the figures below are those of a loaded process.
        const afterIdle =
          settings.warmupS > 0
            ? {
                json32: await saturate(target, false, settings.warmupS),
                stream32: await saturate(target, true, settings.warmupS),
              }
            : null;
        const result = {
          afterIdle,
          json1: await sequential(target, false, settings.sequentialRequests),
          json32: await saturate(target, false),
          stream1: await sequential(target, true, settings.sequentialStreams),
          stream32: await saturate(target, true),
        };
        await sleep(500);
        result.rssAfter = memory(target.pid).rss;
        target.rounds.push(result);
      }
    }
    const pairedTargets = targets.filter((target) => !target.stablePrototypes);
    const paired =
      settings.pairedRounds > 0
        ? {
            json: await pairedRounds(pairedTargets, false, machine),
            stream: await pairedRounds(pairedTargets, true, machine),
          }
        : null;
    for (const target of targets) {
      process.stderr.write(`holding ${settings.holdStreams} streams on ${target.name}\n`);
      target.hold = await hold(target, settings.holdStreams);
      await sleep(500);
      const { rss, hwm } = memory(target.pid);
      target.rssEnd = rss;
      target.peakRss = hwm;
    }

    const directJson = median(directRounds.map((r) => r.json.p50));
    const directJson99 = median(directRounds.map((r) => r.json.p99));
    const directTtft = median(directRounds.map((r) => r.stream.p50));
    const summary = {};
    // A paired row's `/ floor` cell is the median of its rounds' ratios or differences, not its
    // median over the floor's: the two medians may come from rounds at different speeds.
    const pairedCells = {};
    // Each paired row: its metric, the shape whose rounds give it, and what it compares.
    const pairedRows = paired
      ? [
          ['CPU per JSON request, paired rounds (ms)', paired.json, 'cpu'],
          [`CPU per ${settings.chunks}-chunk stream, paired rounds (ms)`, paired.stream, 'cpu'],
          ['p50 c=1, paired rounds (ms)', paired.json, 'latency'],
          ['TTFT c=1, paired rounds (ms)', paired.stream, 'latency'],
        ]
      : [];
    for (const target of targets) {
      const m = (pick) => median(target.rounds.map(pick));
      const pairedFigures = {};
      for (const [metric, shape, kind] of pairedRows) {
        const result = shape.get(target.name)?.[kind];
        if (!result) continue;
        pairedFigures[metric] = result.median;
        if (target !== targets[0])
          (pairedCells[metric] ??= {})[target.name] =
            kind === 'cpu' ? pairedRatioCell(result) : pairedDifferenceCell(result);
      }
      const errors = target.rounds
        .flatMap((r) => [
          r.json1,
          r.json32,
          r.stream1,
          r.stream32,
          r.afterIdle?.json32,
          r.afterIdle?.stream32,
        ])
        .reduce(
          (sum, run) => sum + (run?.errors ?? 0),
          (paired?.json.get(target.name)?.errors ?? 0) +
            (paired?.stream.get(target.name)?.errors ?? 0),
        );
      summary[target.name] = {
        'added p50 c=1 (ms)': m((r) => r.json1.p50) - directJson,
        'added p99 c=1 (ms)': m((r) => r.json1.p99) - directJson99,
        'p50 c=32 (ms)': m((r) => r.json32.p50),
        'p99 c=32 (ms)': m((r) => r.json32.p99),
        'JSON req/s c=32': m((r) => r.json32.rps),
        'CPU per JSON request (ms)': m((r) => r.json32.cpuMsPerRequest),
        [`CPU per ${settings.chunks}-chunk stream (ms)`]: m((r) => r.stream32.cpuMsPerRequest),
        'streams/s c=32': m((r) => r.stream32.rps),
        ...(settings.warmupS > 0
          ? {
              [`CPU per JSON request, first ${settings.warmupS} s after idle (ms)`]: m(
                (r) => r.afterIdle.json32.cpuMsPerRequest,
              ),
              [`CPU per stream, ${settings.warmupS}-${2 * settings.warmupS} s after idle (ms)`]: m(
                (r) => r.afterIdle.stream32.cpuMsPerRequest,
              ),
            }
          : {}),
        'added TTFT c=1 (ms)': m((r) => r.stream1.p50) - directTtft,
        ...pairedFigures,
        'RSS 2 s after start (MiB)': target.startRss,
        'idle RSS (MiB)': target.idleRss,
        'peak RSS (MiB)': target.peakRss,
        'RSS after each round (MiB)': target.rounds.map((r) => r.rssAfter.toFixed(0)).join('/'),
        [`${settings.holdStreams} streams held: errors`]: target.hold.errors,
        errors,
        ...(target.startMs !== undefined ? { 'start to ready (ms)': target.startMs } : {}),
      };
    }
    const metrics = [...new Set(Object.values(summary).flatMap((figures) => Object.keys(figures)))];
    const rows = metrics.map((metric) => {
      const row = { metric };
      for (const name of Object.keys(summary)) {
        const value = summary[name][metric];
        row[name] =
          typeof value === 'number'
            ? Number.isInteger(value)
              ? value
              : value.toFixed(2)
            : (value ?? '');
        if (name !== 'floor')
          row[`${name} / floor`] =
            pairedCells[metric]?.[name] ?? ratio(value, summary.floor[metric]);
        if (name === 'gateway' && summary.baseline)
          // The paired rounds compare each target with the floor only.
          row['gateway / baseline'] = pairedCells[metric]
            ? ''
            : ratio(value, summary.baseline[metric]);
      }
      return row;
    });
    console.log(
      `\nupstream ${settings.upstreamLatencyMs} ms, streams of ${settings.chunks} chunks ${settings.chunkDelayMs} ms apart, ` +
        `${settings.rounds} rounds, ${settings.durationS} s per saturation run${settings.warmupS > 0 ? ` (each target's round after ${settings.warmupS} s of JSON and ${settings.warmupS} s of streams, reported as "after idle")` : ''}, concurrency ${settings.concurrency}, ` +
        `database ${settings.database}, targets on CPU ${TARGET_CPU}, load on CPU ${LOAD_CPU}, ` +
        `runtime ${describeRuntime(RUNTIME)}${BASELINE_RUNTIME === RUNTIME ? '' : ` (baseline ${describeRuntime(BASELINE_RUNTIME)})`} (medians over rounds; ` +
        `direct upstream p50 ${directJson.toFixed(2)} ms, TTFT ${directTtft.toFixed(2)} ms)` +
        (paired
          ? `; paired rounds: ${settings.pairedRounds} of ${settings.pairedRoundS} s and ${settings.pairedSequential} requests one at a time per target but the stable floors, ` +
            "their rows' `/ floor` cells the median of the rounds' ratios (IQR) or differences to the floor"
          : '') +
        '\n',
    );
    const machineReading = machine.stop();
    console.log(table(rows));
    console.log(`\n${describeMachine(machineReading)}`);
    writeFileSync(
      OUTPUT,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          settings,
          machine: machineReading,
          direct: {
            jsonP50: directJson,
            jsonP99: directJson99,
            ttftP50: directTtft,
            rounds: directRounds,
          },
          summary,
          paired: paired
            ? pairedTargets.map(({ name }) => ({
                name,
                json: paired.json.get(name),
                stream: paired.stream.get(name),
              }))
            : null,
          raw: targets.map(
            ({ name, startRss, idleRss, peakRss, rssEnd, rounds, hold: held, startMs }) => ({
              name,
              startRss,
              idleRss,
              peakRss,
              rssEnd,
              startMs,
              hold: held,
              rounds,
            }),
          ),
        },
        null,
        2,
      ),
    );
    console.log(`\nwritten to ${OUTPUT}`);
  } finally {
    await Promise.all(
      children.map((child) => stopChild(child, PROFILE_DIR ? 'SIGUSR2' : 'SIGTERM')),
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
