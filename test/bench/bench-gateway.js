// How the benchmarks run a built gateway (bench.js, ab.js): its environment, and a virtual key
// made with its own CLI when it has a database of its own.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

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

module.exports = { benchGatewayEnv, createBenchKey };
