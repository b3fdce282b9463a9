import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migration-runner';

const MIGRATIONS = join(__dirname, '..', '..', 'prisma', 'migrations');

/** The test Postgres server's admin connection (local by default). */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function asAdmin(server: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * A fresh database on the test server, so a suite never sees another's rows; migrated with the
 * project's own runner unless `migrate` is false (tests of that runner start from empty).
 */
export async function createDatabase(
  prefix: string,
  options: { migrate?: boolean; server?: string } = {},
): Promise<ScratchDatabase> {
  const server = options.server ?? adminUrl();
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await asAdmin(server, `CREATE DATABASE "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  if (options.migrate !== false) await runMigrations(url.toString(), MIGRATIONS);
  return { name, url: url.toString(), drop: () => dropDatabase(name, server) };
}

/** FORCE: a connection a failed test left open must not keep the database alive. */
export async function dropDatabase(name: string, server = adminUrl()): Promise<void> {
  await asAdmin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
