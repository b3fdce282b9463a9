import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { EmbeddedPostgres } from './embedded-postgres';
import { pendingMigrations, runMigrations } from './migration-runner';

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');

/** Where Prisma connects, and the embedded server behind it when there is one. */
export interface DatabaseConnection {
  url: string;
  embedded: EmbeddedPostgres | null;
}
export const DatabaseConnection = Symbol('DatabaseConnection');

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  migrateOnStart: boolean;
  /** A short-lived tool (the CLI) may use the embedded server a running gateway already serves. */
  joinRunningEmbedded?: boolean;
  /** Only for the tool that applies the migrations. */
  allowUnmigrated?: boolean;
}

const logger = new Logger('Database');

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseConnection> {
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    try {
      if (options.migrateOnStart) await migrate(url);
      else if (!options.allowUnmigrated) await refuseUnmigrated(url);
    } catch (error) {
      throw new Error(`DATABASE_URL (${redactedUrl(url)}): ${(error as Error).message}`, {
        cause: error,
      });
    }
    return { url, embedded: null };
  }
  const running = options.joinRunningEmbedded
    ? EmbeddedPostgres.runningServer(options.dataDir)
    : undefined;
  if (running) return { url: running.url, embedded: null };
  const embedded = await EmbeddedPostgres.start(options.dataDir);
  logger.warn(
    `DATABASE_URL is not set: using the embedded Postgres (PGlite) in ${options.dataDir}`,
  );
  try {
    await migrate(embedded.url);
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { url: embedded.url, embedded };
}

/** Fails fast on a schema behind the code, instead of serving 500s while looking healthy. */
async function refuseUnmigrated(url: string): Promise<void> {
  const pending = await pendingMigrations(url, MIGRATIONS_DIR);
  if (pending.length === 0) return;
  throw new Error(
    `The database is missing ${pending.length} migration(s) (${pending.join(', ')}). ` +
      'Run `npm run db:migrate` (or `npx gateway db migrate`), or start with DB_MIGRATE_ON_START=true.',
  );
}

async function migrate(url: string): Promise<void> {
  const report = await runMigrations(url, MIGRATIONS_DIR, (message) => logger.log(message));
  logger.log(
    `database schema up to date (${report.applied.length} applied, ${report.alreadyApplied} already applied)`,
  );
}

/** The URL as an operator can recognise it, without its password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'unparsable URL';
  }
}
