import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS_DIR } from '../src/database/database-connection';
import { readMigrations, runMigrations } from '../src/database/migration-runner';
import { createDatabase } from './support/databases';
import { startTestApp } from './support/test-app';

/** Each test gets an empty database of its own on the test server. */
async function withEmptyDatabase(run: (url: string) => Promise<void>): Promise<void> {
  const database = await createDatabase('gateway_migrate', { migrate: false });
  try {
    await run(database.url);
  } finally {
    await database.drop();
  }
}

async function query<T = any>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migration runner (Prisma layout, Prisma bookkeeping)', () => {
  it('applies every migration once and records it as prisma migrate deploy does', async () => {
    await withEmptyDatabase(async (url) => {
      const first = await runMigrations(url, MIGRATIONS_DIR);
      const local = readMigrations(MIGRATIONS_DIR);
      expect(first.applied).toEqual(local.map((m) => m.name));
      const rows = await query(url, 'SELECT * FROM _prisma_migrations ORDER BY migration_name');
      expect(rows.map((r) => r.migration_name)).toEqual(local.map((m) => m.name));
      for (const [index, row] of rows.entries()) {
        expect(row.checksum).toBe(createHash('sha256').update(local[index].sql).digest('hex'));
        expect(row.finished_at).toBeInstanceOf(Date);
        expect(row.rolled_back_at).toBeNull();
        expect(row.applied_steps_count).toBe(1);
        expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      }
      const second = await runMigrations(url, MIGRATIONS_DIR);
      expect(second).toEqual({ applied: [], alreadyApplied: local.length });
      expect(await query(url, 'SELECT count(*)::int AS n FROM virtual_keys')).toEqual([{ n: 0 }]);
    });
  });

  it('lets only one of two concurrent runners apply (advisory lock)', async () => {
    await withEmptyDatabase(async (url) => {
      const [a, b] = await Promise.all([
        runMigrations(url, MIGRATIONS_DIR),
        runMigrations(url, MIGRATIONS_DIR),
      ]);
      const total = readMigrations(MIGRATIONS_DIR).length;
      expect(a.applied.length + b.applied.length).toBe(total);
      expect(await query(url, 'SELECT count(*)::int AS n FROM _prisma_migrations')).toEqual([
        { n: total },
      ]);
    });
  });

  it('rolls a failing migration back, records it, fails loudly, and retries it once fixed', async () => {
    await withEmptyDatabase(async (url) => {
      const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      mkdirSync(join(dir, '29991231000000_broken'));
      writeFileSync(
        join(dir, '29991231000000_broken', 'migration.sql'),
        'CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n',
      );

      await expect(runMigrations(url, dir)).rejects.toThrow(
        /29991231000000_broken failed and was rolled back: .*no_such_table/,
      );
      expect(await query(url, "SELECT to_regclass('half_done') AS t")).toEqual([{ t: null }]);
      const [failed] = await query(
        url,
        "SELECT * FROM _prisma_migrations WHERE migration_name = '29991231000000_broken'",
      );
      expect(failed.finished_at).toBeNull();
      expect(failed.rolled_back_at).toBeInstanceOf(Date);
      expect(failed.logs).toContain('no_such_table');

      writeFileSync(
        join(dir, '29991231000000_broken', 'migration.sql'),
        'CREATE TABLE half_done (id int);\n',
      );
      const fixed = await runMigrations(url, dir);
      expect(fixed.applied).toEqual(['29991231000000_broken']);
    });
  });

  it('refuses to run past a failure that was never resolved', async () => {
    await withEmptyDatabase(async (url) => {
      await runMigrations(url, MIGRATIONS_DIR);
      await query(
        url,
        "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ('00000000-0000-0000-0000-000000000001', 'x', '29990101000000_stuck', now())",
      );
      await expect(runMigrations(url, MIGRATIONS_DIR)).rejects.toThrow(
        /29990101000000_stuck failed earlier/,
      );
    });
  });

  it('keeps the gateway from starting on a database that is behind, unless told to migrate it', async () => {
    await withEmptyDatabase(async (url) => {
      await expect(startTestApp({ env: { DATABASE_URL: url } })).rejects.toThrow(
        /missing \d+ migration\(s\).*npm run db:migrate/,
      );
      const gateway = await startTestApp({
        env: { DATABASE_URL: url, DB_MIGRATE_ON_START: 'true' },
      });
      await gateway.close();
      const restarted = await startTestApp({ env: { DATABASE_URL: url } });
      await restarted.close();
    });
  });
});
