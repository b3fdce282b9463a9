import { dropDatabase } from '../support/databases';
import { closeRunScope } from '../support/run-scope';

/** Drops the run's database (KEEP_TEST_DATABASE=1 keeps it) and removes its scratch folder. */
export default async function globalTeardown(): Promise<void> {
  const name = process.env.TEST_DATABASE_NAME;
  try {
    if (name && !process.env.KEEP_TEST_DATABASE)
      await dropDatabase(name, process.env.TEST_DATABASE_ADMIN_URL);
  } finally {
    closeRunScope();
  }
}
