#!/usr/bin/env node
// `node test/bench/ab.js ROOT_A ROOT_B [ROOT_C ...]` (docs/performance.md, "Comparing two
// builds"): CPU per request of built checkouts (each a folder with `dist/` and `package.json`,
// e.g. a copy of an older commit after `npm run build`) in short rounds that alternate between
// them, and per round each build's figure divided by the first one's. A ROOT may also name one
// of the floors (floors.js: `floor`, `floor-stable`, `nest-floor`, `nest-floor-stable`; a
// folder of that name is `./floor`): `ab.js floor .` measures the gateway's ratio to the floor,
// the CPU target, in rounds seconds apart instead of minutes. On a shared VM whose speed
// drifts by 20 % between minutes, `npm run bench`'s medians of three 8-second runs, each target
// minutes apart, cannot resolve a change of a few percent; a ratio taken within seconds can, and
// the median of forty of them, with the count of rounds where the build was cheaper and a sign
// test's p on that count (signTestP), says whether it is. Every build runs with start:prod's
// runtime (start-runtime.js), on the targets' core, with the benchmark's gateway settings; the
// load and the fake upstream run on the other core.
//
// Environment: AB_ROUNDS (40), AB_ROUND_S (1.5 s of load per build per round), AB_WARMUP_S (3 s
// per build before the first round), AB_STREAM=1 (50-event streams instead of JSON answers),
// BENCH_CONNECTIONS (32), BENCH_DATABASE_URL (external Postgres; else each build starts on its
// embedded defaults), BENCH_REDIS_URL (Redis counters), BENCH_GATEWAY_ENV (JSON, more variables),
// AB_SEQUENTIAL=N (after each build's load in a round, N requests one at a time: its p50 latency,
// or time to first token with AB_STREAM=1, compared as the CPU is).
const { writeFileSync } = require('node:fs');
const stats = require('./process-stats');
const { runPairedRounds } = require('./paired-rounds');
const { spawnFakeUpstream } = require('./fake-upstream');
const { saturate } = require('./requests');
const { describeMachine, watchMachine } = require('./machine');
const { startTargets, stopTargets, targetsFromArgs } = require('./targets');

const env = process.env;
const LOAD_CPU = env.BENCH_LOAD_CPU ?? '0';
const args = process.argv.slice(2);
const roots = targetsFromArgs(args, 'ab.js', 2);
if (stats.reRunPinned(__filename, args, LOAD_CPU)) return;

const settings = {
  rounds: Number(env.AB_ROUNDS ?? 40),
  roundS: Number(env.AB_ROUND_S ?? 1.5),
  warmupS: Number(env.AB_WARMUP_S ?? 3),
  stream: env.AB_STREAM === '1',
  concurrency: Number(env.BENCH_CONNECTIONS ?? 32),
  sequential: Number(env.AB_SEQUENTIAL ?? 0),
};

/** A build's one-at-a-time p50s against the first build's, round by round. */
function latencyAgainstA(p50, index) {
  const { median, ...againstA } = stats.againstFirst(p50, index);
  return { p50Median: median, ...againstA };
}

async function main() {
  const upstream = await spawnFakeUpstream({ UPSTREAM_LATENCY_MS: '1' });
  let builds = [];
  try {
    builds = await startTargets(roots, { upstreamUrl: upstream.url, env, prefix: 'ab' });
    const machine = watchMachine(builds[0].cpu);
    for (const build of builds)
      await saturate(build, {
        stream: settings.stream,
        seconds: settings.warmupS,
        connections: settings.concurrency,
      });
    const { cpu, p50, errors, sequentialErrors } = await runPairedRounds(builds, {
      rounds: settings.rounds,
      roundS: settings.roundS,
      warmS: 0,
      stream: settings.stream,
      connections: settings.concurrency,
      sequential: settings.sequential,
      machine,
      // The round's figures as they come, so that a long run shows its drift.
      afterRound: (round, { cpu: cpuSoFar, p50: p50SoFar }) => {
        const latencies = settings.sequential
          ? `; ${settings.stream ? 'first token' : 'p50'} one at a time ${p50SoFar.map((p) => p[round].toFixed(3)).join(' ')} ms`
          : '';
        console.log(
          `round ${round + 1}/${settings.rounds}: ${cpuSoFar.map((c) => c[round].toFixed(3)).join(' ')} ms${latencies}`,
        );
      },
    });
    const machineReading = machine.stop();
    const rows = builds.map((build, index) => {
      const { median, ratioMedian, ...againstA } = stats.ratioToFirst(cpu, index);
      return {
        build: build.name,
        cpuMsMedian: median,
        ratioToA: ratioMedian,
        ...againstA,
        errors: errors[index],
        sequential: settings.sequential
          ? { ...latencyAgainstA(p50, index), errors: sequentialErrors[index] }
          : null,
      };
    });
    console.log(
      `\n${settings.stream ? '50-event streams' : 'JSON answers'}, ${settings.rounds} rounds of ${settings.roundS} s per build at concurrency ${settings.concurrency}:`,
    );
    for (const row of rows)
      console.log(
        row.ratioIqr
          ? `${row.build}: ${row.cpuMsMedian.toFixed(3)} ms per request; ${row.ratioToA.toFixed(3)}x A (IQR ${row.ratioIqr.map((r) => r.toFixed(3)).join('-')}), cheaper than A in ${row.cheaperRounds} of ${settings.rounds} rounds (sign test p ${stats.formatP(row.signTestP)}); ${row.errors} errors`
          : `${row.build}: ${row.cpuMsMedian.toFixed(3)} ms per request; ${row.errors} errors`,
      );
    if (settings.sequential) {
      const what = settings.stream ? 'time to first token' : 'p50 latency';
      console.log(`\n${what}, ${settings.sequential} requests one at a time per build per round:`);
      for (const { build, sequential: l } of rows)
        console.log(
          l.lowerRounds === null
            ? `${build}: ${l.p50Median.toFixed(3)} ms; ${l.errors} errors`
            : `${build}: ${l.p50Median.toFixed(3)} ms; ${l.differenceMedian >= 0 ? '+' : ''}${l.differenceMedian.toFixed(3)} ms against A (median of the rounds' differences), lower than A in ${l.lowerRounds} of ${settings.rounds} rounds (sign test p ${stats.formatP(l.signTestP)}); ${l.errors} errors`,
        );
    }
    console.log(`\n${describeMachine(machineReading)}`);
    if (env.AB_OUTPUT)
      writeFileSync(
        env.AB_OUTPUT,
        JSON.stringify({ settings, machine: machineReading, rows }, null, 2),
      );
  } finally {
    await stopTargets(builds);
    upstream.child.kill();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
