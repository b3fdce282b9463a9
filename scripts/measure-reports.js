#!/usr/bin/env node
// Times every usage and spend report, each dashboard usage view up to 366 days and the Keys page,
// against the scratch database that scripts/load-usage-rows.js fills (docs/usage.md, "Reports at
// scale"). It starts the built gateway (dist/) on that database, with the admin and dashboard rate
// limits raised for the run, and prints the median and slowest of 5 answers after one warm-up:
// warm cache, the database's pages in memory.
//
// With --cold, each case's first answer is timed too, after the database's files were dropped
// from the operating system's page cache (`dd iflag=nocache`; it needs read access to the data
// directory, as root or postgres). Postgres's own shared buffers are not emptied, so it is
// cold-ish, not a cold start.
//
//   npm run build && node scripts/measure-reports.js [--database usage_scale] [--cold]
'use strict';

const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { createServer } = require('node:net');
const { cpus, totalmem } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');

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

/** The database's files, to drop from the page cache before a cold-ish answer. */
async function databaseFiles() {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT current_setting('data_directory') AS dir, oid FROM pg_database WHERE datname = current_database()`,
    );
    const dir = join(rows[0].dir, 'base', String(rows[0].oid));
    return readdirSync(dir).map((name) => join(dir, name));
  } finally {
    await client.end();
  }
}

function dropPageCache(files) {
  for (const file of files)
    execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
}

async function describe() {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS buffers,
              (SELECT sum(reltuples)::bigint FROM pg_class WHERE relname LIKE 'usage_records_%' AND relkind = 'r') AS records,
              (SELECT count(*) FROM usage_daily) AS daily, (SELECT count(*) FROM usage_weekly) AS weekly,
              (SELECT count(*) FROM usage_hourly) AS hourly,
              pg_size_pretty(pg_database_size(current_database())) AS size`,
    );
    const r = rows[0];
    console.log(
      `PostgreSQL ${r.version} (shared_buffers ${r.buffers}); ${Number(r.records).toLocaleString('en')} usage records (estimate), ` +
        `rollup rows ${r.daily} daily, ${r.weekly} weekly, ${r.hourly} hourly; ${r.size}`,
    );
    console.log(
      `machine: ${cpus().length} x ${cpus()[0].model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}`,
    );
  } finally {
    await client.end();
  }
}

async function timed(fetchOnce, files) {
  let cold = null;
  if (files) {
    dropPageCache(files);
    const started = performance.now();
    await fetchOnce();
    cold = performance.now() - started;
  } else await fetchOnce();
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await fetchOnce();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { cold, median: times[2], max: times[4] };
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
    // The session's own cookie, not one that expires a stray cookie of the same name.
    const cookie = session.headers
      .getSetCookie()
      .find(
        (line) => line.startsWith('gateway_dashboard=') && !line.startsWith('gateway_dashboard=;'),
      )
      .split(';')[0];
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
        ['6 hours', 6 * 3_600_000],
        ['12 hours', 12 * 3_600_000],
        ['24 hours', DAY_MS],
        ['48 hours', 2 * DAY_MS],
        ['7 days', 7 * DAY_MS],
        ['30 days', 30 * DAY_MS],
        ['90 days', 90 * DAY_MS],
        ['366 days', 366 * DAY_MS],
      ].map(([label, ms]) => [
        `dashboard usage view, ${label}`,
        () => dashboard(`/usage?from=${iso(now - ms)}&to=${iso(now)}`),
      ]),
      // Newest keys first: the load makes the busiest keys the newest.
      ['dashboard keys page, 20 keys with last use', () => dashboard('/keys')],
      ['dashboard keys page, 100 keys with last use', () => dashboard('/keys?per_page=100')],
    ];
    await describe();
    const files = process.argv.includes('--cold') ? await databaseFiles() : null;
    console.log(
      `database ${databaseUrl.replace(/\/\/[^@]*@/, '//')}; warm cache: median and slowest of 5 after a warm-up` +
        (files ? '; cold-ish: first answer after dropping the page cache' : ''),
    );
    for (const [label, fetchOnce] of cases) {
      const { cold, median, max } = await timed(fetchOnce, files);
      console.log(
        `${label.padEnd(48)} median ${median.toFixed(0).padStart(4)} ms, slowest ${max.toFixed(0).padStart(4)} ms` +
          (cold === null ? '' : `, cold-ish ${cold.toFixed(0).padStart(4)} ms`),
      );
    }
    // The CLI runs the same SpendReport; most of its time is the start of a Nest context, which
    // a command that reads next to nothing (teams list) shows.
    const cliTime = (args) => {
      const started = performance.now();
      const cli = spawnSync(
        process.execPath,
        [join(__dirname, '..', 'dist', 'cli', 'main.js'), ...args],
        {
          env,
          encoding: 'utf8',
        },
      );
      if (cli.status !== 0) throw new Error(`gateway ${args.join(' ')}: ${cli.stderr}`);
      return performance.now() - started;
    };
    const spend = cliTime(['spend', '--group-by', 'team', '--from', day(year)]);
    const list = cliTime(['teams', 'list']);
    console.log(
      `${'CLI spend by team, 366 days (whole command)'.padEnd(48)} ${spend.toFixed(0)} ms; ` +
        `\`gateway teams list\` takes ${list.toFixed(0)} ms`,
    );
  } finally {
    gateway.kill('SIGTERM');
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
