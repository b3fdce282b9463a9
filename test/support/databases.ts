import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migration-runner';
import { isAlive, runPid } from './run-scope';

const MIGRATIONS = join(__dirname, '..', '..', 'prisma', 'migrations');

/** The server the tests make their databases on, as a user allowed to create and drop them. */
export const DEFAULT_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The test Postgres server's admin connection: TEST_DATABASE_ADMIN_URL, else DEFAULT_ADMIN_URL. */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL || DEFAULT_ADMIN_URL;
}

/** The URL as it may be printed: the password, if any, masked. */
function shown(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function asAdmin<T>(server: string, work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: server });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `the tests need a Postgres server where user "${new URL(server).username}" may create and ` +
        `drop databases: ${shown(server)} refused (${(error as Error).message}). Start one there, ` +
        `or set TEST_DATABASE_ADMIN_URL (default ${DEFAULT_ADMIN_URL}).`,
      { cause: error },
    );
  }
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * A fresh database on the test server, so a suite never sees another's rows; migrated with the
 * project's own runner unless `migrate` is false (tests of that runner start from empty). Its name
 * carries the run's pid (`<prefix>_r<pid>_<hex>`), so a later run can drop it if this one dies.
 */
export async function createDatabase(
  prefix: string,
  options: { migrate?: boolean; server?: string } = {},
): Promise<ScratchDatabase> {
  const server = options.server ?? adminUrl();
  const name = `${prefix}_r${runPid()}_${randomBytes(4).toString('hex')}`;
  await asAdmin(server, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  if (options.migrate !== false) await runMigrations(url.toString(), MIGRATIONS);
  return { name, url: url.toString(), drop: () => dropDatabase(name, server) };
}

/** FORCE: a connection a failed test left open must not keep the database alive. */
export async function dropDatabase(name: string, server = adminUrl()): Promise<void> {
  await asAdmin(server, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Drops the databases that runs which have died left behind (createDatabase's names). */
export async function dropDatabasesOfDeadRuns(server = adminUrl()): Promise<string[]> {
  const { rows } = await asAdmin(server, (admin) =>
    admin.query<{ datname: string }>(
      String.raw`SELECT datname FROM pg_database WHERE datname ~ '^[a-z_]+_r[0-9]+_[0-9a-f]{8}$'`,
    ),
  );
  const dead = rows
    .map(({ datname }) => datname)
    .filter((name) => !isAlive(Number(/_r(\d+)_[0-9a-f]{8}$/.exec(name)![1])));
  for (const name of dead) await dropDatabase(name, server);
  return dead;
}

/** One query on the suite's database (DATABASE_URL) over a connection of its own: its rows. */
export async function queryTestDatabase(
  sql: string,
  params: unknown[] = [],
): Promise<Record<string, any>[]> {
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}
