#!/usr/bin/env node
// `npm run bench:startup` (docs/performance.md, "Start-up"): how long the built gateway takes from
// `node dist/main.js` (with the settings of `npm run start:prod`, start-runtime.js) to its
// "gateway listening" line on the embedded defaults, the README's
// quick start: a first start on a new data folder (the build's template is copied), then a
// restart on the same folder. Also RSS 2 s after listening, from /proc/<pid>/status.
//
// Builds compared: this checkout, and each folder in BENCH_STARTUP_ROOTS (colon-separated
// checkouts of other commits, built), started in turn round after round so drift cancels; figures
// are medians over BENCH_STARTUP_ROUNDS rounds (default 7). Nothing is pinned: start-up uses a
// second core where Node can (the template copy runs on a worker thread).
//
// Output: a table on stdout and BENCH_OUTPUT (startup-results.json).
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { median, memory, sleep } = require('./process-stats');
const { PLAIN_RUNTIME, runtimeFor } = require('./start-runtime');
const { describeMachine, watchMachine } = require('./machine');

const ROOT = join(__dirname, '..', '..');
const env = process.env;
const ROUNDS = Number(env.BENCH_STARTUP_ROUNDS ?? 7);
const ROOTS = [ROOT, ...(env.BENCH_STARTUP_ROOTS ?? '').split(':').filter(Boolean)].map((root) =>
  resolve(root),
);
const OUTPUT = env.BENCH_OUTPUT ?? join(ROOT, 'startup-results.json');
const TIMEOUT_MS = 60_000;
// Every build starts as this checkout's start:prod starts the gateway, so what differs is the
// code; BENCH_RUNTIME=plain starts them as plain `node`. BENCH_STARTUP_PLAIN=1 adds this build
// as plain `node` to the rotation: a before/after of the start settings.
const RUNTIME = runtimeFor(ROOT, env.BENCH_RUNTIME);
const TARGETS = ROOTS.map((root) => ({ label: root, root, runtime: RUNTIME }));
if (env.BENCH_STARTUP_PLAIN === '1' && RUNTIME !== PLAIN_RUNTIME)
  TARGETS.push({ label: `${ROOT} (plain node)`, root: ROOT, runtime: PLAIN_RUNTIME });

/** Starts the target's build on `dataDir`; resolves with ms to "gateway listening" and RSS. */
async function start({ root, runtime }, dataDir) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...runtime.nodeArgs, join(root, 'dist', 'main.js')], {
    cwd: root,
    env: {
      ...runtime.env,
      PATH: env.PATH,
      HOME: env.HOME,
      GATEWAY_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => (output += chunk);
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  try {
    const listeningMs = await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no start in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      child.stdout.on('data', () => {
        if (!output.includes('gateway listening')) return;
        clearTimeout(timer);
        done(Number(process.hrtime.bigint() - started) / 1e6);
      });
      child.once('exit', (code) => fail(new Error(`exited with ${code}: ${output.slice(-500)}`)));
    });
    await sleep(2000);
    return { listeningMs, rss2s: memory(child.pid).rss };
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
}

async function main() {
  const runs = new Map(TARGETS.map(({ label }) => [label, { first: [], restart: [], rss: [] }]));
  // Every core: nothing is pinned (see the header).
  const machine = watchMachine();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of TARGETS) {
      const folder = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
      try {
        const dataDir = join(folder, 'data');
        const first = await start(target, dataDir);
        const restart = await start(target, dataDir);
        const run = runs.get(target.label);
        run.first.push(first.listeningMs);
        run.restart.push(restart.listeningMs);
        run.rss.push(restart.rss2s);
        console.error(
          `round ${round} ${target.label}: first ${first.listeningMs.toFixed(0)} ms, restart ${restart.listeningMs.toFixed(0)} ms`,
        );
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  }
  const results = TARGETS.map(({ label, root, runtime }) => {
    const run = runs.get(label);
    return {
      build: label,
      root,
      runtime,
      firstStartMs: median(run.first),
      restartMs: median(run.restart),
      rss2sMiB: median(run.rss),
      firstStarts: run.first,
      restarts: run.restart,
    };
  });
  const machineReading = machine.stop();
  writeFileSync(
    OUTPUT,
    JSON.stringify({ rounds: ROUNDS, machine: machineReading, results }, null, 2),
  );
  console.log('| build | first start (s) | restart (s) | RSS 2 s after a restart (MiB) |');
  console.log('|---|---|---|---|');
  for (const result of results) {
    const range = (values) =>
      `${(median(values) / 1000).toFixed(2)} (${(Math.min(...values) / 1000).toFixed(2)}-${(Math.max(...values) / 1000).toFixed(2)})`;
    console.log(
      `| ${result.build} | ${range(result.firstStarts)} | ${range(result.restarts)} | ${result.rss2sMiB.toFixed(0)} |`,
    );
  }
  console.log(`\n${describeMachine(machineReading)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
