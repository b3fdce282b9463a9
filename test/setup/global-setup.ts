import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migration-runner';

/**
 * One fresh Postgres database per test run, migrated with the project's own runner, so runs
 * never see each other's rows. TEST_DATABASE_ADMIN_URL names the server (local by default).
 */
export default async function globalSetup(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `gateway_test_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await runMigrations(url.toString(), join(__dirname, '..', '..', 'prisma', 'migrations'));
  process.env.DATABASE_URL = url.toString();
  process.env.TEST_DATABASE_NAME = name;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
  process.env.GATEWAY_DATA_DIR = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  process.env.LOG_LEVEL ??= 'error';
}
