#!/usr/bin/env node
// Times every usage and spend report, and each dashboard usage view up to 366 days, against the
// scratch database that scripts/load-usage-rows.js fills (docs/usage.md, "Reports at scale").
// It starts the built gateway (dist/) on that database, with the admin and dashboard rate limits
// raised for the run, and prints the median and slowest of 5 answers after one warm-up.
//
//   npm run build && node scripts/measure-reports.js [--database usage_scale]
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { createServer } = require('node:net');
const { join } = require('node:path');

const DAY_MS = 86_400_000;
const ADMIN_KEY = 'measure-reports-admin-key-0123456789';

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const adminUrl =
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const databaseUrl = Object.assign(new URL(adminUrl), {
  pathname: `/${option('database', 'usage_scale')}`,
}).toString();

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function timed(fetchOnce) {
  await fetchOnce();
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await fetchOnce();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[2], max: times[4] };
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: ADMIN_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DASHBOARD_RATE_LIMIT: '100000',
  };
  const gateway = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      const ready = await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (i > 300) throw new Error('the gateway did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const admin = (path) =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then(
        async (response) => {
          if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
          return response.text();
        },
      );
    const session = await fetch(`${base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ admin_key: ADMIN_KEY }),
    });
    const cookie = session.headers.get('set-cookie').split(';')[0];
    const dashboard = (path) =>
      fetch(`${base}/dashboard/api${path}`, { headers: { cookie } }).then(async (response) => {
        if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
        return response.text();
      });

    const now = Date.now();
    const iso = (ms) => new Date(ms).toISOString();
    const day = (ms) => iso(ms).slice(0, 10);
    const year = now - 366 * DAY_MS;
    const [heaviest] = JSON.parse(await admin(`/admin/usage?group_by=key&limit=1`)).data;
    const cases = [
      ['admin usage by key (default: 30 days)', () => admin('/admin/usage?group_by=key')],
      ['admin usage by model (default: 30 days)', () => admin('/admin/usage?group_by=model')],
      ['admin usage by key, 366 days', () => admin(`/admin/usage?group_by=key&from=${iso(year)}`)],
      [
        'admin usage by model, 366 days',
        () => admin(`/admin/usage?group_by=model&from=${iso(year)}`),
      ],
      [
        'admin usage of one key by model, 366 days',
        () => admin(`/admin/usage?group_by=model&key_id=${heaviest.key_id}&from=${iso(year)}`),
      ],
      ...['key', 'team', 'model', 'deployment', 'day'].flatMap((group) => [
        [
          `admin spend by ${group} (default: 30 days)`,
          () => admin(`/admin/spend?group_by=${group}`),
        ],
        [
          `admin spend by ${group}, 366 days`,
          () => admin(`/admin/spend?group_by=${group}&from=${day(year)}`),
        ],
      ]),
      [
        'admin spend by key, 366 days, CSV',
        () => admin(`/admin/spend?group_by=key&from=${day(year)}&format=csv`),
      ],
      ...[
        ['1 hour', 3_600_000],
        ['24 hours', DAY_MS],
        ['7 days', 7 * DAY_MS],
        ['30 days', 30 * DAY_MS],
        ['90 days', 90 * DAY_MS],
        ['366 days', 366 * DAY_MS],
      ].map(([label, ms]) => [
        `dashboard usage view, ${label}`,
        () => dashboard(`/usage?from=${iso(now - ms)}&to=${iso(now)}`),
      ]),
    ];
    console.log(`database ${databaseUrl.replace(/\/\/[^@]*@/, '//')}`);
    for (const [label, fetchOnce] of cases) {
      const { median, max } = await timed(fetchOnce);
      console.log(
        `${label.padEnd(48)} median ${median.toFixed(0).padStart(4)} ms, slowest ${max.toFixed(0).padStart(4)} ms`,
      );
    }
    // The CLI runs the same SpendReport; most of its time is the start of a Nest context.
    const started = performance.now();
    const cli = spawnSync(
      process.execPath,
      [
        join(__dirname, '..', 'dist', 'cli', 'main.js'),
        'spend',
        '--group-by',
        'team',
        '--from',
        day(year),
      ],
      { env, encoding: 'utf8' },
    );
    if (cli.status !== 0) throw new Error(`gateway spend: ${cli.stderr}`);
    console.log(
      `${'CLI spend by team, 366 days (whole command)'.padEnd(48)} ${(performance.now() - started).toFixed(0)} ms`,
    );
  } finally {
    gateway.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
