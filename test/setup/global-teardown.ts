import { dropDatabase } from '../support/databases';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.TEST_DATABASE_NAME;
  if (!name || process.env.KEEP_TEST_DATABASE) return;
  await dropDatabase(name, process.env.TEST_DATABASE_ADMIN_URL);
}
