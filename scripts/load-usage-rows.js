#!/usr/bin/env node
// Loads a scratch database with usage records at scale, to measure the usage and spend reports
// (docs/usage.md, "Reports at scale"). The rows are streamed as CSV into `psql \copy` (COPY,
// not INSERTs), in time order as the gateway writes them, evenly over `--days` days up to now;
// then the daily, weekly and hourly rollups are built from them as the gateway's insert statement
// would have, the indexes are built once at the end, and the database is vacuumed and analyzed as
// autovacuum would leave it.
//
// The spread: 500 keys, a few heavy ones and a long tail (key = floor(500 * random^2)), the
// busiest created last; 20 teams over four keys in five; 6 models, each key mostly one and
// sometimes a second, 2 deployments each; 4 endpoints, each key one of them and a tenth of the
// keys a second; 97 % completed, 2 % failed, 1 % aborted; one model unpriced.
//
//   npm run build                                       # the migrations runner comes from dist/
//   node scripts/load-usage-rows.js --rows 50000000     # creates usage_scale (about 19 GB)
//   node scripts/load-usage-rows.js --drop              # drops it again: disk matters
//
// Options: --database NAME (usage_scale), --rows N (50,000,000), --days N (366), --keys N (500),
// --admin-url URL (TEST_DATABASE_ADMIN_URL or postgresql://postgres@127.0.0.1:5432/postgres).
'use strict';

const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { Client } = require('pg');

const DAY_MS = 86_400_000;
const MODELS = [
  'alpha-k3',
  'beta-v4-flash-0731',
  'beta-v4-pro-0813',
  'gamma-2',
  'delta-mini',
  'epsilon-xl',
];
const TEAMS = 20;
/** Each key (an application) calls one API; a tenth of them a second one as well. */
const ENDPOINTS = [
  'chat_completions',
  'chat_completions',
  'chat_completions',
  'messages',
  'responses',
  'embeddings',
];

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const adminUrl =
  option('admin-url', undefined) ??
  process.env.TEST_DATABASE_ADMIN_URL ??
  'postgresql://postgres@127.0.0.1:5432/postgres';
const database = option('database', 'usage_scale');
if (!/^[a-z_][a-z0-9_]*$/.test(database))
  throw new Error(`--database ${database}: not a plain name`);
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

async function admin(sql) {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A UUIDv7-shaped id: 48 bits of time, then the sequence number, so ids are unique. */
function uuid(hex12, sequence) {
  const t = sequence.toString(16).padStart(15, '0');
  return `${hex12.slice(0, 8)}-${hex12.slice(8, 12)}-7${t.slice(0, 3)}-8${t.slice(3, 6)}-${t.slice(6)}000`;
}

/** Pico-dollars as the exact 12-decimal string Postgres stores. */
function usd(pico) {
  const text = pico.toString().padStart(13, '0');
  return `${text.slice(0, -12)}.${text.slice(-12)}`;
}

async function setUp(client, keys, start, end) {
  const keyIds = Array.from({ length: keys }, (_, i) =>
    uuid((0x19000000000 + i).toString(16).padStart(12, '0'), i),
  );
  const teamIds = Array.from({ length: TEAMS }, (_, i) =>
    uuid((0x18000000000 + i).toString(16).padStart(12, '0'), i),
  );
  await client.query(
    `INSERT INTO teams (id, name) SELECT unnest($1::uuid[]), 'team-' || generate_series(1, $2)`,
    [teamIds, TEAMS],
  );
  // The busiest keys are the newest, so the first page of the dashboard's Keys page (newest
  // first, with each key's last use) holds them.
  await client.query(
    `INSERT INTO virtual_keys (id, name, key_prefix, secret_hash, team_id, created_at)
     SELECT id, 'key-' || n, 'gk-scale', md5(id::text) || md5(n::text), ($2::uuid[])[1 + n % $3],
            now() - n * interval '1 minute'
       FROM unnest($1::uuid[]) WITH ORDINALITY AS k(id, n)`,
    [keyIds, teamIds, TEAMS],
  );
  // Monthly partitions for the whole range, as UsagePartitions keeps them.
  for (
    let month = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1));
    month < end;
  ) {
    const next = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
    const name = `usage_records_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF usage_records FOR VALUES FROM ('${month.toISOString()}') TO ('${next.toISOString()}')`,
    );
    month = next;
  }
  return { keyIds, teamIds };
}

/** The secondary indexes are built once after the load, which is much faster than row by row. */
async function secondaryIndexes(client) {
  const { rows } = await client.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('usage_records', 'usage_daily', 'usage_weekly', 'usage_hourly')
       AND indexname NOT LIKE '%_pkey'`,
  );
  return rows;
}

function copyRows({ rows, keyIds, teamIds, start, end }) {
  const psql = spawn(
    'psql',
    [
      databaseUrl,
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `\\copy usage_records (id, created_at, request_id, key_id, public_model, deployment, status, http_status, error_code, stream, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, cost_usd, price_version, team_id, latency_ms, endpoint) FROM STDIN WITH (FORMAT csv)`,
    ],
    { stdio: ['pipe', 'inherit', 'inherit'] },
  );
  const exited = new Promise((resolve, reject) =>
    psql.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`psql exited with ${code}`)),
    ),
  );
  const span = end.getTime() - start.getTime();
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  let written = 0;
  const reportEvery = Math.max(1, Math.floor(rows / 10));
  const write = () => {
    while (written < rows) {
      const lines = [];
      const batchEnd = Math.min(rows, written + 5_000);
      for (; written < batchEnd; written++) {
        const ms = start.getTime() + Math.floor((span * written) / rows);
        const hex = ms.toString(16).padStart(12, '0');
        // A few heavy keys and a long tail, as real traffic has.
        const key = Math.floor(keyIds.length * random() ** 2);
        const team = key % 25 < 20 ? teamIds[key % TEAMS] : '';
        // Each key (an application) mostly calls one model, sometimes a second.
        const model = MODELS[random() < 0.8 ? key % MODELS.length : (key * 7 + 1) % MODELS.length];
        const endpoint =
          ENDPOINTS[
            key % 10 === 0 && random() < 0.3 ? (key + 3) % ENDPOINTS.length : key % ENDPOINTS.length
          ];
        const roll = random();
        const status = roll < 0.97 ? 'completed' : roll < 0.99 ? 'failed' : 'aborted';
        const prompt = 20 + Math.floor(random() * 2_000);
        const completion = status === 'failed' ? 0 : Math.floor(random() * 800);
        const priced = model !== 'epsilon-xl';
        lines.push(
          `${uuid(hex, written)},${new Date(ms).toISOString()},req_${written.toString(36)},${keyIds[key]},${model},${model}/${written % 2},${status},${status === 'completed' ? 200 : status === 'failed' ? 502 : 499},${status === 'failed' ? 'upstream_error' : ''},${written % 3 === 0},${prompt},${completion},,,,${priced ? usd(BigInt(prompt) * 150_000n + BigInt(completion) * 600_000n) : ''},${priced ? 'a1b2c3d4e5f6' : ''},${team},${50 + Math.floor(random() * 3_000)},${endpoint}\n`,
        );
        if ((written + 1) % reportEvery === 0)
          process.stdout.write(`  ${((written + 1) / 1e6).toFixed(1)}M rows sent\n`);
      }
      if (!psql.stdin.write(lines.join(''))) return psql.stdin.once('drain', write);
    }
    psql.stdin.end();
  };
  write();
  return exited;
}

async function main() {
  if (process.argv.includes('--drop')) {
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    console.log(`dropped ${database}`);
    return;
  }
  const rows = Number(option('rows', 50_000_000));
  const days = Number(option('days', 366));
  const keys = Number(option('keys', 500));
  const end = new Date();
  const start = new Date(end.getTime() - days * DAY_MS);
  const started = Date.now();
  const lap = (what) => console.log(`${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

  await admin(`CREATE DATABASE "${database}"`);
  const { runMigrations } = require(
    join(__dirname, '..', 'dist', 'database', 'migration-runner.js'),
  );
  await runMigrations(databaseUrl, join(__dirname, '..', 'prisma', 'migrations'), () => undefined);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { keyIds, teamIds } = await setUp(client, keys, start, end);
    const indexes = await secondaryIndexes(client);
    for (const { indexname } of indexes) await client.query(`DROP INDEX "${indexname}"`);
    lap(
      `${database}: schema, ${keys} keys, ${TEAMS} teams; copying ${rows} rows over ${days} days`,
    );
    await copyRows({ rows, keyIds, teamIds, start, end });
    lap('rows copied');
    await client.query(`SET work_mem = '256MB'`);
    await client.query(`
      INSERT INTO usage_daily (day, key_id, team_id, public_model, deployment, endpoint, requests, completed,
        failed, aborted, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens,
        reasoning_tokens, cost_usd, unpriced_requests, latency_ms)
      SELECT (created_at AT TIME ZONE 'UTC')::date, key_id, COALESCE(team_id::text, ''), public_model,
        COALESCE(deployment, ''), endpoint, count(*), count(*) FILTER (WHERE status = 'completed'),
        count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'aborted'),
        sum(prompt_tokens), sum(completion_tokens), COALESCE(sum(cached_tokens), 0),
        COALESCE(sum(cache_write_tokens), 0), COALESCE(sum(reasoning_tokens), 0),
        COALESCE(sum(cost_usd), 0), count(*) FILTER (WHERE cost_usd IS NULL), sum(latency_ms)
      FROM usage_records GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`);
    await client.query(`
      INSERT INTO usage_weekly (week, key_id, team_id, public_model, deployment, endpoint, requests, completed,
        failed, aborted, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens,
        reasoning_tokens, cost_usd, unpriced_requests, latency_ms)
      SELECT day - ((day - DATE '1970-01-01') % 7), key_id, team_id, public_model, deployment, endpoint,
        sum(requests), sum(completed), sum(failed), sum(aborted), sum(prompt_tokens),
        sum(completion_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(reasoning_tokens),
        sum(cost_usd), sum(unpriced_requests), sum(latency_ms)
      FROM usage_daily GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`);
    await client.query(`
      INSERT INTO usage_hourly (hour, key_id, public_model, endpoint, requests, completed, failed,
        aborted, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens,
        reasoning_tokens, cost_usd, unpriced_requests, latency_ms)
      SELECT date_bin('1 hour', created_at, TIMESTAMPTZ '1970-01-01 00:00:00+00'), key_id,
        public_model, endpoint, count(*), count(*) FILTER (WHERE status = 'completed'),
        count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'aborted'),
        sum(prompt_tokens), sum(completion_tokens), COALESCE(sum(cached_tokens), 0),
        COALESCE(sum(cache_write_tokens), 0), COALESCE(sum(reasoning_tokens), 0),
        COALESCE(sum(cost_usd), 0), count(*) FILTER (WHERE cost_usd IS NULL), sum(latency_ms)
      FROM usage_records GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
    lap('daily, weekly and hourly rollups built');
    await client.query(`SET maintenance_work_mem = '1GB'`);
    // pg_indexes shows an index of a partitioned table as ON ONLY, which would skip its partitions.
    for (const { indexdef } of indexes) await client.query(indexdef.replace(' ON ONLY ', ' ON '));
    // As autovacuum leaves an insert-mostly table: visibility map set, statistics fresh.
    await client.query('VACUUM ANALYZE');
    lap('indexes built, vacuumed and analyzed');
    const { rows: sizes } = await client.query(
      `SELECT pg_size_pretty(pg_database_size(current_database())) AS size,
              (SELECT count(*) FROM usage_daily) AS daily, (SELECT count(*) FROM usage_weekly) AS weekly,
              (SELECT count(*) FROM usage_hourly) AS hourly`,
    );
    const { size, daily, weekly, hourly } = sizes[0];
    console.log(
      `${database}: ${size}; rollup rows: ${daily} daily, ${weekly} weekly, ${hourly} hourly. Drop it with --drop.`,
    );
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
