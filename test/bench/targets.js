// How the paired benchmarks (ab.js, first-token-split.js) start a target by the name they were
// given: one of the floors (floors.js), or a built checkout (a folder with `dist/` and
// `package.json`) started as bench.js starts the gateway.
const { resolve } = require('node:path');
const { startBenchGateway } = require('./bench-gateway');
const { FLOORS, startFloor } = require('./floors');
const { startRuntime } = require('./start-runtime');

const CHECKOUT = resolve(__dirname, '..', '..');

/** A command line's target: a floor's name as it is, anything else as a folder's absolute path. */
const targetRoot = (arg) => (Object.hasOwn(FLOORS, arg) ? arg : resolve(arg));

/**
 * Starts target `root` (targetRoot's) on core `cpu`, labelled with its letter (`index`: A, B, ...).
 * A build runs with its own start:prod runtime, the benchmark's gateway settings, `BENCH_REDIS_URL`'s
 * counters and `BENCH_DATABASE_URL`'s Postgres (from `env`); a floor with this checkout's runtime.
 */
async function startTarget(root, { index, upstreamUrl, cpu, inherited, env }) {
  const name = `${String.fromCharCode(65 + index)} ${root}`;
  if (Object.hasOwn(FLOORS, root)) {
    const floor = await startFloor(root, {
      upstreamUrl,
      cpu,
      runtime: startRuntime(CHECKOUT),
      inherited,
    });
    return { ...floor, name, root };
  }
  const gateway = await startBenchGateway({
    root,
    name: `ab-${index}`,
    upstreamUrl,
    cpu,
    runtime: startRuntime(root),
    inherited,
    extraEnv: env.BENCH_REDIS_URL ? { REDIS_URL: env.BENCH_REDIS_URL } : {},
    databaseUrl: env.BENCH_DATABASE_URL,
  });
  return { ...gateway, name, root };
}

module.exports = { startTarget, targetRoot };
