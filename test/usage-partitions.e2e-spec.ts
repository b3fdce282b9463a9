import { loadAppConfig } from '../src/config/app-config';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PrismaService } from '../src/database/prisma.service';
import {
  maintainedMonths,
  partitionName,
  UsagePartitions,
} from '../src/usage/usage-partitions.service';
import { createDatabase, ScratchDatabase } from './support/databases';

/**
 * Runs on a database of its own: retention drops whole months, which must not touch the rows
 * of suites running in parallel on the shared test database.
 */
describe('usage_records partitions', () => {
  let scratch: ScratchDatabase;
  let database: Client;
  let prisma: PrismaService;

  const partitionsOf = async () =>
    (
      await database.query<{ name: string; bound: string }>(
        `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_records'::regclass ORDER BY c.relname`,
      )
    ).rows;
  const insert = (createdAt: string) =>
    database.query(
      `INSERT INTO usage_records (id, created_at, request_id, key_id, public_model, status, http_status, stream,
         prompt_tokens, completion_tokens, latency_ms)
       VALUES ($1, $2, 'req', $3, 'alpha-k3', 'completed', 200, false, 1, 1, 1)`,
      [randomUUID(), createdAt, randomUUID()],
    );
  const rowsByPartition = async () =>
    (
      await database.query<{ partition: string; n: number }>(
        'SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM usage_records GROUP BY 1 ORDER BY 1',
      )
    ).rows;
  const service = (retentionMonths: number) =>
    new UsagePartitions(prisma, loadAppConfig({ USAGE_RETENTION_MONTHS: retentionMonths }));

  beforeAll(async () => {
    scratch = await createDatabase('gateway_partitions');
    const { url } = scratch;
    database = new Client({ connectionString: url });
    await database.connect();
    await database.query("SET TimeZone = 'UTC'"); // partition bounds below are printed in UTC
    prisma = new PrismaService({ url, embedded: null }, loadAppConfig({}));
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await database.end();
    await scratch.drop();
  });

  it('starts with only the default partition, which takes any row', async () => {
    expect(await partitionsOf()).toEqual([{ name: 'usage_records_default', bound: 'DEFAULT' }]);
    await insert('2031-02-10T12:00:00Z');
    await insert('2031-03-31T23:59:59.999Z');
    await insert('2031-04-01T00:00:00Z');
    expect(await rowsByPartition()).toEqual([{ partition: 'usage_records_default', n: 3 }]);
  });

  it('creates the current and next two UTC months, moving rows the default partition held for them', async () => {
    const report = await service(0).maintain(new Date('2031-02-15T08:00:00Z'));
    expect(report).toEqual({
      created: ['usage_records_2031_02', 'usage_records_2031_03', 'usage_records_2031_04'],
      dropped: [],
    });
    expect(await partitionsOf()).toEqual([
      {
        name: 'usage_records_2031_02',
        bound: "FOR VALUES FROM ('2031-02-01 00:00:00+00') TO ('2031-03-01 00:00:00+00')",
      },
      {
        name: 'usage_records_2031_03',
        bound: "FOR VALUES FROM ('2031-03-01 00:00:00+00') TO ('2031-04-01 00:00:00+00')",
      },
      {
        name: 'usage_records_2031_04',
        bound: "FOR VALUES FROM ('2031-04-01 00:00:00+00') TO ('2031-05-01 00:00:00+00')",
      },
      { name: 'usage_records_default', bound: 'DEFAULT' },
    ]);
    expect(await rowsByPartition()).toEqual([
      { partition: 'usage_records_2031_02', n: 1 },
      { partition: 'usage_records_2031_03', n: 1 },
      { partition: 'usage_records_2031_04', n: 1 },
    ]);
    // New rows go straight to their month, and the partitions carry the table's indexes.
    await insert('2031-03-05T00:00:00Z');
    expect((await rowsByPartition())[1]).toEqual({ partition: 'usage_records_2031_03', n: 2 });
    const { rows } = await database.query(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'usage_records_2031_03' ORDER BY 1`,
    );
    // The primary key, key and model by time, and the time's BRIN summary.
    expect(rows.map((row) => row.indexname)).toHaveLength(4);
  });

  it('is idempotent, also when instances run it at the same time', async () => {
    const now = new Date('2031-03-20T00:00:00Z');
    const reports = await Promise.all([
      service(0).maintain(now),
      service(0).maintain(now),
      service(0).maintain(now),
    ]);
    const created = reports.flatMap((report) => report.created);
    expect(created).toEqual(['usage_records_2031_05']);
    expect(await service(0).maintain(now)).toEqual({ created: [], dropped: [] });
  });

  it('with USAGE_RETENTION_MONTHS drops whole months older than the retention, and old default rows', async () => {
    await insert('2030-12-31T00:00:00Z'); // in the default partition, older than any monthly one
    const report = await service(1).maintain(new Date('2031-04-02T00:00:00Z'));
    // Keeps March (one whole month back) and April onwards; February goes.
    expect(report).toEqual({
      created: ['usage_records_2031_06'],
      dropped: ['usage_records_2031_02'],
    });
    expect((await partitionsOf()).map((partition) => partition.name)).toEqual([
      'usage_records_2031_03',
      'usage_records_2031_04',
      'usage_records_2031_05',
      'usage_records_2031_06',
      'usage_records_default',
    ]);
    expect(await rowsByPartition()).toEqual([
      { partition: 'usage_records_2031_03', n: 2 },
      { partition: 'usage_records_2031_04', n: 1 },
    ]);
  });

  it('keeps everything with retention 0', async () => {
    expect((await service(0).maintain(new Date('2040-01-01T00:00:00Z'))).dropped).toEqual([]);
    expect((await rowsByPartition()).reduce((sum, row) => sum + row.n, 0)).toBe(3);
  });

  it('at start-up runs without holding the application back, and shutdown waits for the run', async () => {
    const names = maintainedMonths(new Date()).map(partitionName);
    const before = (await partitionsOf()).map((partition) => partition.name);
    expect(before).not.toEqual(expect.arrayContaining(names));

    const partitions = service(0);
    // Returns before any query has answered: Nest's init does not wait for it.
    expect(partitions.onApplicationBootstrap()).toBeUndefined();
    expect((await partitionsOf()).map((partition) => partition.name)).toEqual(before);
    await partitions.onModuleDestroy();

    expect((await partitionsOf()).map((partition) => partition.name)).toEqual(
      expect.arrayContaining(names),
    );
  });
});
