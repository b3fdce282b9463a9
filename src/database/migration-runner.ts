import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/** The key `prisma migrate` takes, so this runner and Prisma's never migrate at the same time. */
const PRISMA_ADVISORY_LOCK = 72707369;

// Prisma's own bookkeeping table, created exactly as prisma migrate deploy creates it.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

type Log = (message: string) => void;

export function readMigrations(directory: string): LocalMigration[] {
  if (!existsSync(directory)) throw new Error(`No migrations folder at ${directory}`);
  // Prisma refuses migrations written for another database; so do we.
  const lockFile = join(directory, 'migration_lock.toml');
  const provider = existsSync(lockFile)
    ? /^provider\s*=\s*"([^"]+)"/m.exec(readFileSync(lockFile, 'utf8'))?.[1]
    : 'postgresql';
  if (provider !== 'postgresql')
    throw new Error(`${lockFile} is for provider "${provider}", not postgresql`);
  return readdirSync(directory, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(join(directory, entry.name, 'migration.sql')),
    )
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(directory, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending Prisma-layout migrations the way `prisma migrate deploy` does (same table, same
 * lock, same checksums), for machines where Prisma's schema engine cannot be downloaded. Each
 * migration runs in a transaction; a failure is rolled back, recorded, and thrown.
 */
export async function runMigrations(
  connectionString: string,
  directory: string,
  log: Log = () => undefined,
): Promise<MigrationReport> {
  const migrations = readMigrations(directory);
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    try {
      return await applyPending(client, migrations, log);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]);
    }
  } finally {
    await client.end();
  }
}

/** Local migrations the database has not applied yet (all of them on an empty database). */
export async function pendingMigrations(
  connectionString: string,
  directory: string,
): Promise<string[]> {
  const local = readMigrations(directory);
  const client = new Client({ connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string | null }>(
      `SELECT to_regclass('"_prisma_migrations"')::text AS table`,
    );
    if (!rows[0].table) return local.map((migration) => migration.name);
    const applied = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const names = new Set(applied.rows.map((row) => row.migration_name));
    return local
      .filter((migration) => !names.has(migration.name))
      .map((migration) => migration.name);
  } finally {
    await client.end();
  }
}

async function applyPending(
  client: Client,
  migrations: LocalMigration[],
  log: Log,
): Promise<MigrationReport> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<{
    migration_name: string;
    checksum: string;
    finished_at: Date | null;
    rolled_back_at: Date | null;
  }>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );
  const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed) {
    throw new Error(
      `Migration ${failed.migration_name} failed earlier and was not resolved. Fix the database, then mark it with ` +
        '`prisma migrate resolve` (or delete its row from _prisma_migrations) before migrating again.',
    );
  }
  const applied = new Map(
    rows
      .filter((row) => row.finished_at !== null && row.rolled_back_at === null)
      .map((row) => [row.migration_name, row]),
  );
  const report: MigrationReport = { applied: [], alreadyApplied: 0 };
  for (const migration of migrations) {
    const existing = applied.get(migration.name);
    if (existing) {
      report.alreadyApplied++;
      if (existing.checksum !== migration.checksum)
        log(`warning: migration ${migration.name} was modified after it was applied`);
      continue;
    }
    await applyOne(client, migration);
    report.applied.push(migration.name);
    log(`applied migration ${migration.name}`);
  }
  return report;
}

async function applyOne(client: Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  await client.query(
    'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
    [id, migration.checksum, migration.name],
  );
  try {
    await client.query('BEGIN');
    await client.query(migration.sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    const message = (error as Error).message;
    // Rolled back as a whole, so it is recorded the way `prisma migrate resolve --rolled-back` would.
    await client.query(
      'UPDATE "_prisma_migrations" SET logs = $2, rolled_back_at = now() WHERE id = $1',
      [id, message],
    );
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${message}`, {
      cause: error,
    });
  }
  await client.query(
    'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
    [id],
  );
}
