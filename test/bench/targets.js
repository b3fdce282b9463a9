// How the paired benchmarks (ab.js, first-token-split.js) take their targets from the command
// line and start them (heap-growth.js its one build): each a floor by name (floors.js) or a
// built checkout (a folder with `dist/` and `package.json`) started as bench.js starts the
// gateway, on the targets' core, in rounds whose order alternates.
const { resolve } = require('node:path');
const { startBenchGateway } = require('./bench-gateway');
const { FLOORS, startFloor } = require('./floors');
const { stopChild } = require('./process-stats');
const { inheritedEnv, startRuntime } = require('./start-runtime');

const CHECKOUT = resolve(__dirname, '..', '..');

/**
 * The command line's targets (a floor's name as it is, anything else as a folder's absolute
 * path); exits with a usage line when there are fewer than `minimum`.
 */
function targetsFromArgs(args, script, minimum) {
  if (args.length >= minimum)
    return args.map((arg) => (Object.hasOwn(FLOORS, arg) ? arg : resolve(arg)));
  console.error(
    `usage: node test/bench/${script} TARGET_A ${minimum > 1 ? 'TARGET_B ' : ''}[TARGET ...] (a TARGET: a built checkout or one of ${Object.keys(FLOORS).join(', ')})`,
  );
  process.exit(2);
}

/**
 * Starts each target (targetsFromArgs's) on core BENCH_TARGET_CPU (1, the target's `cpu`),
 * labelled with its letter (A, B, ...), sending to `upstreamUrl`. A build runs with its own
 * start:prod runtime, the benchmark's gateway settings, BENCH_REDIS_URL's counters and
 * BENCH_DATABASE_URL's Postgres, in a folder and with a key named after `prefix`, and with
 * `nodeArgs` and `extraEnv` added (a preloaded probe, heap-growth.js); a floor with this
 * checkout's runtime. On a failure the targets already started are stopped.
 */
async function startTargets(roots, options) {
  const targets = [];
  try {
    for (const [index, root] of roots.entries())
      targets.push(await startTarget(root, index, options));
    return targets;
  } catch (error) {
    await stopTargets(targets);
    throw error;
  }
}

async function startTarget(root, index, { upstreamUrl, env, prefix, nodeArgs, extraEnv }) {
  const name = `${String.fromCharCode(65 + index)} ${root}`;
  const cpu = env.BENCH_TARGET_CPU ?? '1';
  const inherited = inheritedEnv(env);
  if (Object.hasOwn(FLOORS, root)) {
    const floor = await startFloor(root, {
      upstreamUrl,
      cpu,
      runtime: startRuntime(CHECKOUT),
      inherited,
    });
    return { ...floor, name, root, cpu };
  }
  const gateway = await startBenchGateway({
    root,
    name: `${prefix}-${index}`,
    upstreamUrl,
    cpu,
    runtime: startRuntime(root),
    inherited,
    extraEnv: { ...(env.BENCH_REDIS_URL ? { REDIS_URL: env.BENCH_REDIS_URL } : {}), ...extraEnv },
    databaseUrl: env.BENCH_DATABASE_URL,
    nodeArgs,
  });
  return { ...gateway, name, root, cpu };
}

/** Stops the targets and resolves once each has exited (stopChild). */
function stopTargets(targets) {
  return Promise.all(targets.map((target) => stopChild(target.child)));
}

/** The targets' order in round `round`: alternating, so that none always runs right after another. */
function roundOrder(count, round) {
  const order = Array.from({ length: count }, (_, index) => index);
  return round % 2 ? order.reverse() : order;
}

module.exports = { roundOrder, startTargets, stopTargets, targetsFromArgs };
