import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { AppConfig } from '../config/app-config';

/** Monthly partitions kept ready beyond the current month. */
const MONTHS_AHEAD = 2;
const DAY_MS = 24 * 3600 * 1000;
const PARTITION_NAME = /^usage_records_(\d{4})_(\d{2})$/;
// Serialises maintenance across instances that start at the same time.
const LOCK = `SELECT pg_advisory_xact_lock(hashtext('usage_records partition maintenance'))`;

export interface MaintenanceReport {
  created: string[];
  dropped: string[];
}

/**
 * Keeps usage_records partitioned by UTC month: creates the current and next months'
 * partitions at startup and daily. With USAGE_RETENTION_MONTHS or USAGE_RETENTION_DAYS > 0 it
 * drops whole months that fell out of retention (a DROP TABLE, not a slow DELETE) and deletes the
 * older rows of the month that straddles a mid-month cutoff, and the hourly rollups of the same
 * hours; the daily and weekly rollups are kept. Rows that
 * landed in the default partition because no monthly one existed yet are moved into the new
 * partition.
 */
@Injectable()
export class UsagePartitions implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UsagePartitions');
  private readonly retentionMonths: number;
  private readonly retentionDays: number;
  private timer?: NodeJS.Timeout;
  /** The latest run; maintainAndLog never rejects. */
  private maintenance?: Promise<void>;

  constructor(
    private readonly prisma: PrismaService,
    config: AppConfig,
  ) {
    this.retentionMonths = config.USAGE_RETENTION_MONTHS;
    this.retentionDays = config.USAGE_RETENTION_DAYS;
  }

  /**
   * Not awaited: the gateway may listen while the partitions are checked (one query) or made
   * (a transaction each). A row written meanwhile lands in the default partition and is moved into
   * its month when that partition is attached, so nothing waits and nothing is lost; start-up is
   * 0.1-0.2 s shorter on the embedded database.
   */
  onApplicationBootstrap(): void {
    this.maintenance = this.maintainAndLog();
    this.timer = setInterval(() => (this.maintenance = this.maintainAndLog()), DAY_MS).unref();
  }

  /** Lets a run in progress finish before the database closes (it closes after this hook). */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.maintenance;
  }

  async maintain(now = new Date()): Promise<MaintenanceReport> {
    const months = maintainedMonths(now);
    // One read first: on nearly every run all of them exist, and nothing needs the lock.
    const missing = await this.missingPartitions(months.map(partitionName));
    const created: string[] = [];
    for (const month of months) {
      const name = partitionName(month);
      if (missing.has(name) && (await this.ensurePartition(month))) created.push(name);
    }
    const cutoff = this.retentionCutoff(now, months[0]);
    const dropped = cutoff ? await this.dropRowsBefore(cutoff) : [];
    return { created, dropped };
  }

  /**
   * The time before which raw rows and hourly rollups go: the later of the months and days
   * settings. Daily and weekly rollups are not touched (docs/spend.md, "Spend reports and
   * retention").
   */
  private retentionCutoff(now: Date, current: Date): Date | null {
    const cutoffs: number[] = [];
    if (this.retentionMonths > 0) cutoffs.push(addMonths(current, -this.retentionMonths).getTime());
    if (this.retentionDays > 0) {
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      cutoffs.push(today - this.retentionDays * DAY_MS);
    }
    return cutoffs.length > 0 ? new Date(Math.max(...cutoffs)) : null;
  }

  private async maintainAndLog(): Promise<void> {
    try {
      const { created, dropped } = await this.maintain();
      if (created.length > 0) this.logger.log(`created partitions ${created.join(', ')}`);
      if (dropped.length > 0)
        this.logger.log(`dropped partitions past retention: ${dropped.join(', ')}`);
    } catch (error) {
      this.logger.error(
        `partition maintenance failed (rows go to the default partition meanwhile): ${(error as Error).message}`,
      );
    }
  }

  private async missingPartitions(names: string[]): Promise<Set<string>> {
    const rows = await this.prisma.$queryRaw<Array<{ name: string }>>`
      SELECT name FROM unnest(${names}::text[]) AS name WHERE to_regclass(name) IS NULL`;
    return new Set(rows.map((row) => row.name));
  }

  /**
   * Creates the month's partition unless it exists (checked again under the lock, as another
   * instance may have made it since the read); true when it was created.
   */
  private ensurePartition(month: Date): Promise<boolean> {
    const name = partitionName(month);
    const from = month.toISOString();
    const to = addMonths(month, 1).toISOString();
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(LOCK);
        const [{ exists }] = await tx.$queryRaw<
          Array<{ exists: boolean }>
        >`SELECT to_regclass(${name}) IS NOT NULL AS "exists"`;
        if (exists) return false;
        // Held until commit, so no row for this month can land in the default partition between
        // the move below and the ATTACH (which would then fail). Only rows no monthly partition
        // covers wait; the lock is taken before ATTACH locks the parent, as inserts do.
        await tx.$executeRawUnsafe('LOCK TABLE "usage_records_default" IN ACCESS EXCLUSIVE MODE');
        // Names and bounds come from a Date, never from input, so inlining them is safe.
        await tx.$executeRawUnsafe(
          `CREATE TABLE "${name}" (LIKE "usage_records" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
        );
        // ATTACH refuses while the default partition holds rows of the month: move them first.
        await tx.$executeRawUnsafe(
          `WITH moved AS (DELETE FROM "usage_records_default" WHERE "created_at" >= '${from}' AND "created_at" < '${to}' RETURNING *)
           INSERT INTO "${name}" SELECT * FROM moved`,
        );
        await tx.$executeRawUnsafe(
          `ALTER TABLE "usage_records" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`,
        );
        return true;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
  }

  /**
   * Drops every monthly partition that ends at or before the cutoff (a DROP TABLE), then deletes
   * the older rows of the one month that straddles a mid-month cutoff and of the default
   * partition: the DELETE never spans more than one month of rows. The hourly rollups before the
   * cutoff are deleted too: a day's worth per daily run, once the first run has caught up.
   */
  private dropRowsBefore(cutoff: Date): Promise<string[]> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(LOCK);
        const partitions = await tx.$queryRaw<Array<{ name: string }>>`
          SELECT c.relname AS "name" FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'usage_records'::regclass`;
        const expired = partitions
          .map(({ name }) => ({ name, match: PARTITION_NAME.exec(name) }))
          .filter(
            ({ match }) =>
              match && Date.UTC(Number(match[1]), Number(match[2]), 1) <= cutoff.getTime(),
          )
          .map(({ name }) => name)
          .sort();
        for (const name of expired) await tx.$executeRawUnsafe(`DROP TABLE "${name}"`);
        // On the parent: partition pruning limits it to the straddling month and the default.
        await tx.$executeRawUnsafe(
          `DELETE FROM "usage_records" WHERE "created_at" < '${cutoff.toISOString()}'`,
        );
        // The hours stand in for raw rows at a report's ends, so they go with them.
        await tx.$executeRawUnsafe(
          `DELETE FROM "usage_hourly" WHERE "hour" < '${cutoff.toISOString()}'`,
        );
        return expired;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
  }
}

/** The first days (UTC) of the months whose partitions are kept ready: this one and MONTHS_AHEAD. */
export function maintainedMonths(now: Date): Date[] {
  const current = monthStart(now);
  return Array.from({ length: MONTHS_AHEAD + 1 }, (_, ahead) => addMonths(current, ahead));
}

export function partitionName(month: Date): string {
  return `usage_records_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

function addMonths(month: Date, count: number): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + count, 1));
}
