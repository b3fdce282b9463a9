#!/usr/bin/env node
// `npm run bench:ab -- ROOT_A ROOT_B [ROOT ...]` (docs/performance.md, "Comparing two builds"):
// CPU per request of built checkouts (each a folder with `dist/` and `package.json`) or of the
// floors (`floor`, `nest-floor`), in short rounds that alternate between them, and per round each
// one's figure divided by the first one's. A ratio taken within seconds resolves a change of a
// few per cent where medians taken minutes apart on a drifting VM cannot; the count of rounds in
// which a build was cheaper, with a sign test's p, says whether it is more than noise.
//
// Environment: AB_ROUNDS (40), AB_ROUND_S (1.5), AB_WARMUP_S (3 s per target before the first
// round), AB_STREAM=1 (50-event streams), AB_SEQUENTIAL=N (N requests one at a time per target
// and round: p50, or time to first token), AB_OUTPUT (JSON), BENCH_CONNECTIONS (32),
// BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_GATEWAY_ENV, BENCH_TARGET_CPU, BENCH_LOAD_CPU.
const { writeFileSync } = require('node:fs');
const stats = require('./process-stats');
const { spawnFakeUpstream } = require('./fake-upstream');
const { runPairedRounds, saturate } = require('./requests');
const { startTargets, stopTargets, targetsFromArgs } = require('./targets');

const env = process.env;
const args = process.argv.slice(2);
const roots = targetsFromArgs(args, 'ab.js', 2);
if (stats.reRunPinned(__filename, args, env.BENCH_LOAD_CPU ?? '0')) return;

const settings = {
  rounds: Number(env.AB_ROUNDS ?? 40),
  roundS: Number(env.AB_ROUND_S ?? 1.5),
  warmupS: Number(env.AB_WARMUP_S ?? 3),
  stream: env.AB_STREAM === '1',
  connections: Number(env.BENCH_CONNECTIONS ?? 32),
  sequential: Number(env.AB_SEQUENTIAL ?? 0),
};

const signed = (value) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;

async function main() {
  const upstream = await spawnFakeUpstream();
  let builds = [];
  try {
    builds = await startTargets(roots, { upstreamUrl: upstream.url, prefix: 'ab' });
    const { stream, connections } = settings;
    for (const build of builds)
      await saturate(build, { stream, seconds: settings.warmupS, connections });
    const { cpu, p50, errors, sequentialErrors } = await runPairedRounds(builds, {
      ...settings,
      warmS: 0,
      // The round's figures as they come, so that a long run shows its drift.
      afterRound: (round, so) => {
        const latencies = settings.sequential
          ? `; one at a time ${so.p50.map((p) => p[round].toFixed(3)).join(' ')} ms`
          : '';
        console.log(
          `round ${round + 1}/${settings.rounds}: ${so.cpu.map((c) => c[round].toFixed(3)).join(' ')} ms${latencies}`,
        );
      },
    });
    const rows = builds.map((build, index) => {
      const { median, ratioMedian, ...againstA } = stats.ratioToFirst(cpu, index);
      const latency = settings.sequential ? stats.againstFirst(p50, index) : null;
      return {
        build: build.name,
        cpuMsMedian: median,
        ratioToA: ratioMedian,
        ...againstA,
        errors: errors[index],
        sequential: latency && { ...latency, errors: sequentialErrors[index] },
      };
    });
    console.log(
      `\n${stream ? '50-event streams' : 'JSON answers'}, ${settings.rounds} rounds of ${settings.roundS} s per build at concurrency ${connections}:`,
    );
    for (const row of rows)
      console.log(
        row.ratioIqr
          ? `${row.build}: ${row.cpuMsMedian.toFixed(3)} ms per request; ${row.ratioToA.toFixed(3)}x A (IQR ${row.ratioIqr.map((r) => r.toFixed(3)).join('-')}), cheaper than A in ${row.cheaperRounds} of ${settings.rounds} rounds (sign test p ${stats.formatP(row.signTestP)}); ${row.errors} errors`
          : `${row.build}: ${row.cpuMsMedian.toFixed(3)} ms per request; ${row.errors} errors`,
      );
    if (settings.sequential) {
      const what = stream ? 'time to first token' : 'p50 latency';
      console.log(`\n${what}, ${settings.sequential} requests one at a time per build per round:`);
      for (const { build, sequential: l } of rows)
        console.log(
          l.lowerRounds === null
            ? `${build}: ${l.median.toFixed(3)} ms; ${l.errors} errors`
            : `${build}: ${l.median.toFixed(3)} ms; ${signed(l.differenceMedian)} ms against A (median of the rounds' differences), lower than A in ${l.lowerRounds} of ${settings.rounds} rounds (sign test p ${stats.formatP(l.signTestP)}); ${l.errors} errors`,
        );
    }
    const machine = stats.machineLine();
    console.log(`\n${machine}`);
    if (env.AB_OUTPUT)
      writeFileSync(env.AB_OUTPUT, JSON.stringify({ settings, machine, rows }, null, 2));
  } finally {
    await stopTargets(builds);
    await stats.stopChild(upstream.child);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
