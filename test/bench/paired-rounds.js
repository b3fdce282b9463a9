// The paired rounds of `npm run bench:ab` (ab.js) and of the end of `npm run bench` (bench.js;
// docs/performance.md, "Comparing two builds"): every target in turn, in an order that alternates
// from round to round, a short run at saturation each and then, optionally, requests one at a
// time. Each target gets one figure per round, set against the first target's of the same rounds
// by the caller (process-stats.js: ratioToFirst, againstFirst): targets compared seconds apart, on
// a VM whose speed drifts between minutes. Before each round, while the targets are idle, the
// machine's user-mode probe takes a reading (machine.js), as the VM can slow midway through a run
// (docs/performance.md, "Thirtieth pass").
const { saturate, sequential } = require('./requests');
const { roundOrder } = require('./targets');

/**
 * Options: rounds; roundS, seconds of measured load per turn; warmS, seconds of unrecorded load
 * right before it (0: none); stream; connections; sequential, requests one at a time after the
 * load (0: none); machine, machine.js's watcher of the run, sampled before each round;
 * beforeRound(round) and afterRound(round, { cpu, p50 }), for progress lines.
 * Resolves with one array per target of: cpu (ms per request, a figure per round), p50 (ms of the
 * one-at-a-time requests, or time to first token with `stream`; empty without `sequential`),
 * errors (of the loads, the unrecorded ones included) and sequentialErrors.
 */
async function runPairedRounds(targets, options) {
  const perTarget = () => targets.map(() => []);
  const cpu = perTarget();
  const p50 = perTarget();
  const errors = targets.map(() => 0);
  const sequentialErrors = targets.map(() => 0);
  const load = (target, seconds) =>
    saturate(target, { stream: options.stream, seconds, connections: options.connections });
  for (let round = 0; round < options.rounds; round++) {
    options.machine?.sample();
    options.beforeRound?.(round);
    for (const index of roundOrder(targets.length, round)) {
      if (options.warmS > 0) errors[index] += (await load(targets[index], options.warmS)).errors;
      const run = await load(targets[index], options.roundS);
      cpu[index].push(run.cpuMsPerRequest);
      errors[index] += run.errors;
      if (options.sequential > 0) {
        const latency = await sequential(targets[index], options.stream, options.sequential);
        p50[index].push(latency.p50);
        sequentialErrors[index] += latency.errors;
      }
    }
    options.afterRound?.(round, { cpu, p50 });
  }
  return { cpu, p50, errors, sequentialErrors };
}

module.exports = { runPairedRounds };
