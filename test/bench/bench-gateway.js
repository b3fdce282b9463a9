// How the benchmarks run a built gateway (bench.js, and through targets.js ab.js and first-token-split.js): its environment, a virtual key made
// with its own CLI when it has a database of its own, and the gateway started as a target.
const { execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, openSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { answers, closedPort, removeFolderOnStop, sleep } = require('./process-stats');

/**
 * The gateway's variables: `inherited` (the shell's, without MALLOC_ARENA_MAX), the runtime's,
 * the caller's `extraEnv`, then everything on at the production log level, and
 * BENCH_GATEWAY_ENV last, for experiments.
 */
function benchGatewayEnv({ inherited, runtime, extraEnv = {}, port, config, dir, databaseUrl }) {
  return {
    ...inherited,
    ...runtime.env,
    ...extraEnv,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    DATABASE_URL: databaseUrl ?? '',
    DB_MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'log',
    LOG_FORMAT: 'json',
    // Checked on every request, never reached: the cost of limits without their 429s.
    KEY_RPM_LIMIT: '1000000000',
    KEY_TOKEN_BUDGET: '1000000000000',
    // Experiments: e.g. BENCH_GATEWAY_ENV='{"LOG_LEVEL":"warn"}'.
    ...JSON.parse(process.env.BENCH_GATEWAY_ENV ?? '{}'),
  };
}

/** Migrates the gateway's database and creates a key named `name` with the build's CLI. */
function createBenchKey(root, gatewayEnv, name) {
  const cli = (args) =>
    execFileSync(process.execPath, [join(root, 'dist', 'cli', 'main.js'), ...args], {
      env: { ...gatewayEnv, LOG_LEVEL: 'warn' },
    });
  cli(['db', 'migrate']);
  const output = cli(['keys', 'create', '--name', name, '--json']);
  return JSON.parse(output.toString()).secret;
}

/**
 * Starts the build at `root` (a checkout after `npm run build`) pinned to core `cpu`, with
 * `runtime` (start-runtime.js) and `nodeArgs`, serving `bench-model` and `bench-hold` from
 * `upstreamUrl`, in a new folder for its config, data and log; `name` names the folder and the
 * key. Resolves once it has a key and answers /health, as a target:
 * { child, pid, port, base, key, logFile, startMs }.
 * The folder goes once a gateway that was ready is stopped (removeFolderOnStop).
 */
async function startBenchGateway({
  root,
  name,
  upstreamUrl,
  cpu,
  runtime,
  inherited,
  extraEnv = {},
  databaseUrl,
  nodeArgs = [],
}) {
  const dir = mkdtempSync(join(tmpdir(), `gateway-bench-${name}-`));
  const config = join(dir, 'gateway.yaml');
  const deployment = (model) =>
    `    - provider: openai\n      base_url: ${upstreamUrl}\n      api_key: sk-bench\n      model: ${model}\n`;
  writeFileSync(
    config,
    `models:\n  bench-model:\n${deployment('bench-model')}  bench-hold:\n${deployment('bench-hold')}`,
  );
  const logFile = join(dir, 'gateway.log');
  // A port chosen here, and readiness from /health, not from the "listening" log line: that line
  // is not written below LOG_LEVEL=log (BENCH_GATEWAY_ENV='{"LOG_LEVEL":"warn"}' waited for ever).
  const port = await closedPort();
  const gatewayEnv = benchGatewayEnv({
    inherited,
    runtime,
    extraEnv,
    port,
    config,
    dir,
    databaseUrl,
  });
  let key;
  if (databaseUrl) key = createBenchKey(root, gatewayEnv, `bench-${name}-${Date.now()}`);
  const node = [...runtime.nodeArgs, ...nodeArgs, join(root, 'dist', 'main.js')];
  const started = Date.now();
  const child = spawn('taskset', ['-c', cpu, process.execPath, ...node], {
    env: gatewayEnv,
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  });
  let exited = false;
  let ready = false;
  child.on('exit', () => (exited = true));
  removeFolderOnStop(child, dir, () => ready);
  for (;;) {
    if (exited) throw new Error(`gateway ${name} (${root}) exited; see ${logFile}`);
    // Written to stdout at every log level (demo-key.service.ts).
    key ??= /Demo virtual key: (\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
    if (key && (await answers(`http://127.0.0.1:${port}/health`))) {
      ready = true;
      return {
        child,
        pid: child.pid,
        port,
        base: `http://127.0.0.1:${port}/v1`,
        key,
        logFile,
        startMs: Date.now() - started,
      };
    }
    await sleep(50);
  }
}

module.exports = { benchGatewayEnv, createBenchKey, startBenchGateway };
