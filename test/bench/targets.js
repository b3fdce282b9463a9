// The benchmarks' targets: the floors (floor-proxy.js, nest-floor-proxy.js) and built gateways,
// each started pinned to the targets' core with start:prod's runtime (start-runtime.js), and the
// command line's targets of `npm run bench:ab` (a floor by name or a built checkout).
const { execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, openSync, readFileSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const stats = require('./process-stats');
const { startRuntime } = require('./start-runtime');

const { answers, closedPort, listeningPort, removeFolderOnStop, sleep, stopChild } = stats;

const CHECKOUT = resolve(__dirname, '..', '..');
const FLOORS = Object.freeze({ floor: 'floor-proxy.js', 'nest-floor': 'nest-floor-proxy.js' });

/** The shell's variables without MALLOC_ARENA_MAX, which each target gets from its runtime. */
const inheritedEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'MALLOC_ARENA_MAX'));

/** Spawns `node [runtime flags] script` pinned to core `cpu`. */
function spawnPinned(cpu, runtime, script, options) {
  return spawn('taskset', ['-c', cpu, process.execPath, ...runtime.nodeArgs, script], options);
}

/** Starts floor `name` on core `cpu` with this checkout's runtime: { child, pid, base, key }. */
async function startFloor(name, { upstreamUrl, cpu }) {
  const runtime = startRuntime(CHECKOUT);
  const child = spawnPinned(cpu, runtime, join(__dirname, FLOORS[name]), {
    env: { ...inheritedEnv(), ...runtime.env, UPSTREAM_URL: upstreamUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, name);
  return { child, pid: child.pid, base: `http://127.0.0.1:${port}/v1`, key: 'none' };
}

/** Everything on at the production log level, limits never reached, BENCH_GATEWAY_ENV last. */
function gatewayEnv(runtime, { redisUrl, port, config, dir, databaseUrl }) {
  return {
    ...inheritedEnv(),
    ...runtime.env,
    REDIS_URL: redisUrl,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    DATABASE_URL: databaseUrl ?? '',
    DB_MIGRATE_ON_START: 'true',
    LOG_LEVEL: 'log',
    LOG_FORMAT: 'json',
    KEY_RPM_LIMIT: '1000000000',
    KEY_TOKEN_BUDGET: '1000000000000',
    ...JSON.parse(process.env.BENCH_GATEWAY_ENV ?? '{}'),
  };
}

/** Migrates the gateway's database and creates a key named `name` with the build's own CLI. */
function createKey(root, env, name) {
  const cli = (args) =>
    execFileSync(process.execPath, [join(root, 'dist', 'cli', 'main.js'), ...args], {
      env: { ...env, LOG_LEVEL: 'warn' },
    });
  cli(['db', 'migrate']);
  return JSON.parse(cli(['keys', 'create', '--name', name, '--json']).toString()).secret;
}

/**
 * Starts the build at `root` (after `npm run build`) on core `cpu` with its start:prod runtime,
 * serving `bench-model`, `bench-hold` and with `embeddings` (builds before it refuse `type`) the
 * embedding model `bench-embed` from `upstreamUrl`, in a folder of its own, on
 * BENCH_DATABASE_URL or the embedded database: { child, pid, base, key, startMs } once healthy.
 */
async function startGateway(options) {
  const { root = CHECKOUT, name, upstreamUrl, cpu, redisUrl = '', embeddings = false } = options;
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const dir = mkdtempSync(join(tmpdir(), `gateway-bench-${name}-`));
  const config = join(dir, 'gateway.yaml');
  const deployment = (model, type = '') =>
    `  ${model}:\n    - provider: openai\n      base_url: ${upstreamUrl}\n      api_key: sk-bench\n      model: ${model}\n${type}`;
  const embed = embeddings ? deployment('bench-embed', '      type: embedding\n') : '';
  writeFileSync(config, `models:\n${deployment('bench-model')}${deployment('bench-hold')}${embed}`);
  const logFile = join(dir, 'gateway.log');
  // Readiness from /health, not from a log line, which LOG_LEVEL may leave out.
  const port = await closedPort();
  const runtime = startRuntime(root);
  const env = gatewayEnv(runtime, { redisUrl, port, config, dir, databaseUrl });
  let key = databaseUrl ? createKey(root, env, `bench-${name}-${Date.now()}`) : undefined;
  const started = Date.now();
  const child = spawnPinned(cpu, runtime, join(root, 'dist', 'main.js'), {
    env,
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  });
  let ready = false;
  removeFolderOnStop(child, dir, () => ready);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`gateway ${name} (${root}) exited; see ${logFile}`);
    key ??= /Demo virtual key: (\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
    if (key && (await answers(`http://127.0.0.1:${port}/health`))) {
      ready = true;
      const base = `http://127.0.0.1:${port}/v1`;
      return { child, pid: child.pid, base, key, startMs: Date.now() - started };
    }
    await sleep(50);
  }
}

/** The command line's targets: a floor's name as it is, anything else as a folder. */
function targetsFromArgs(args, script, minimum) {
  if (args.length >= minimum)
    return args.map((arg) => (Object.hasOwn(FLOORS, arg) ? arg : resolve(arg)));
  console.error(
    `usage: node test/bench/${script} TARGET_A TARGET_B [TARGET ...] (a built checkout, or ${Object.keys(FLOORS).join(' or ')})`,
  );
  process.exit(2);
}

/** Starts each of `roots` on core BENCH_TARGET_CPU, named by its letter; stops them on a failure. */
async function startTargets(roots, { upstreamUrl, prefix }) {
  const redisUrl = process.env.BENCH_REDIS_URL;
  const cpu = process.env.BENCH_TARGET_CPU ?? '1';
  const targets = [];
  try {
    for (const [index, root] of roots.entries()) {
      const target = Object.hasOwn(FLOORS, root)
        ? await startFloor(root, { upstreamUrl, cpu })
        : await startGateway({ root, name: `${prefix}-${index}`, upstreamUrl, cpu, redisUrl });
      targets.push({ ...target, name: `${String.fromCharCode(65 + index)} ${root}`, cpu });
    }
    return targets;
  } catch (error) {
    await stopTargets(targets);
    throw error;
  }
}

/** Stops the targets and resolves once each has exited. */
function stopTargets(targets) {
  return Promise.all(targets.map((target) => stopChild(target.child)));
}

module.exports = { startFloor, startGateway, startTargets, stopTargets, targetsFromArgs };
