// The benchmarks' floors (docs/performance.md): the proxies the gateway is measured against, by
// the names `npm run bench:ab` takes, and how bench.js (and through targets.js ab.js and first-token-split.js) start one as a target.
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { listeningPort } = require('./process-stats');

/** The variable that puts a floor's HTTP server on Express's prototypes ("Ninth pass"). */
const STABLE = Object.freeze({ FLOOR_STABLE_PROTOTYPES: '1' });

/** Each floor: its proxy script and the variables that make it what its name says. */
const FLOORS = Object.freeze({
  floor: { file: 'floor-proxy.js', env: {} },
  'floor-stable': { file: 'floor-proxy.js', env: STABLE },
  'nest-floor': { file: 'nest-floor-proxy.js', env: {} },
  'nest-floor-stable': { file: 'nest-floor-proxy.js', env: STABLE },
});

/**
 * Starts floor `name` (a key of FLOORS) pinned to core `cpu`, with `runtime` (start-runtime.js)
 * and `nodeArgs` before its script, sending to `upstreamUrl`; resolves once it listens, as a
 * target: { child, pid, port, base, key } (a floor takes any key).
 */
async function startFloor(name, { upstreamUrl, cpu, runtime, inherited, nodeArgs = [] }) {
  const { file, env } = FLOORS[name];
  const child = spawn(
    'taskset',
    ['-c', cpu, process.execPath, ...runtime.nodeArgs, ...nodeArgs, join(__dirname, file)],
    {
      env: { ...inherited, ...runtime.env, ...env, UPSTREAM_URL: upstreamUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await listeningPort(child, `${name} (${file})`);
  return { child, pid: child.pid, port, base: `http://127.0.0.1:${port}/v1`, key: 'none' };
}

module.exports = { FLOORS, startFloor };
