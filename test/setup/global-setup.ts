import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminUrl as testServer, createDatabase } from '../support/databases';

/**
 * One fresh Postgres database per test run, migrated with the project's own runner, so runs
 * never see each other's rows. TEST_DATABASE_ADMIN_URL names the server (local by default).
 */
export default async function globalSetup(): Promise<void> {
  const adminUrl = testServer();
  const { name, url } = await createDatabase('gateway_test', { server: adminUrl });
  process.env.DATABASE_URL = url;
  process.env.TEST_DATABASE_NAME = name;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
  process.env.GATEWAY_DATA_DIR = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  process.env.LOG_LEVEL ??= 'error';
}
