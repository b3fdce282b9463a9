#!/usr/bin/env node
// Start-up on the embedded defaults, the README's quick start (docs/performance.md): the built
// gateway as `node dist/main.js` with start:prod's runtime, a new GATEWAY_DATA_DIR and no
// DATABASE_URL, timed from the spawn to its "gateway listening" line; a first start (the build's
// database template is copied) and a restart on the same folder, and RSS 2 s after the restart.
// Nothing is pinned: the template copy runs on a worker thread beside the module loading.
// `npm run bench` runs it last; `npm run bench:startup` alone (BENCH_STARTUP_ROUNDS, 5).
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { machineLine, median, memory, sleep, stopChild } = require('./process-stats');
const { startRuntime } = require('./start-runtime');

const ROOT = join(__dirname, '..', '..');
const TIMEOUT_MS = 60_000;

/** Starts the build on `dataDir`; resolves with ms to "gateway listening" and RSS 2 s later. */
async function start(dataDir) {
  const runtime = startRuntime(ROOT);
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...runtime.nodeArgs, join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      ...runtime.env,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    const listeningMs = await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no start in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (!output.includes('gateway listening')) return;
        clearTimeout(timer);
        done(Number(process.hrtime.bigint() - started) / 1e6);
      });
      child.once('exit', (code) => fail(new Error(`exited with ${code}: ${output.slice(-500)}`)));
    });
    await sleep(2000);
    return { listeningMs, rss: memory(child.pid).rss };
  } finally {
    await stopChild(child);
  }
}

/**
 * `rounds` first starts and restarts, each pair on a new folder that is removed after it:
 * medians and ranges in ms, and the median RSS 2 s after a restart in MiB.
 */
async function measureStartup(rounds) {
  const first = [];
  const restart = [];
  const rss = [];
  for (let round = 1; round <= rounds; round++) {
    const folder = mkdtempSync(join(tmpdir(), 'gateway-bench-startup-'));
    try {
      const dataDir = join(folder, 'data');
      first.push((await start(dataDir)).listeningMs);
      const again = await start(dataDir);
      restart.push(again.listeningMs);
      rss.push(again.rss);
      process.stderr.write(
        `start-up round ${round}/${rounds}: first ${first.at(-1).toFixed(0)} ms, restart ${again.listeningMs.toFixed(0)} ms\n`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const range = (values) => ({
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
  });
  return { rounds, firstStartMs: range(first), restartMs: range(restart), rssMiB: median(rss) };
}

/** The start-up figures as a line: seconds, median (range). */
function describeStartup({ firstStartMs, restartMs, rssMiB }) {
  const seconds = ({ median: m, min, max }) =>
    `${(m / 1000).toFixed(2)} s (${(min / 1000).toFixed(2)}-${(max / 1000).toFixed(2)})`;
  return `start on the embedded defaults: first start ${seconds(firstStartMs)}, restart ${seconds(restartMs)}, RSS ${rssMiB.toFixed(0)} MiB 2 s after a restart`;
}

module.exports = { describeStartup, measureStartup };

if (require.main === module)
  measureStartup(Number(process.env.BENCH_STARTUP_ROUNDS ?? 5))
    .then((result) => console.log(`${describeStartup(result)}\n${machineLine()}`))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
