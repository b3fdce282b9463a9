import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adminUrl as testServer,
  createDatabase,
  dropDatabasesOfDeadRuns,
} from '../support/databases';
import { deleteKeysOfDeadRuns } from '../support/redis';
import { closeRunScope, openRunScope } from '../support/run-scope';

/**
 * The e2e run's Postgres database (one per run, migrated with the project's own runner, so runs
 * never see each other's rows; TEST_DATABASE_ADMIN_URL names the server, by default
 * postgres@127.0.0.1:5432) and its scratch folder (run-scope.ts). First, what runs that died left
 * behind goes: their folders, databases and Redis keys.
 */
export default async function globalSetup(): Promise<void> {
  openRunScope();
  try {
    const adminUrl = testServer();
    await dropDatabasesOfDeadRuns(adminUrl);
    await deleteKeysOfDeadRuns();
    const { name, url } = await createDatabase('gateway_test', { server: adminUrl });
    process.env.DATABASE_URL = url;
    process.env.TEST_DATABASE_NAME = name;
    process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
    process.env.GATEWAY_DATA_DIR = mkdtempSync(join(tmpdir(), 'gateway-test-'));
    process.env.LOG_LEVEL ??= 'error';
  } catch (error) {
    // Jest runs no teardown after a failed setup.
    closeRunScope();
    throw error;
  }
}
