import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, UsageStatus } from '../generated/prisma/client';
import type { UsageQuery, UsageRow } from './usage.types';

export interface UsageCount {
  group: string;
  status: UsageStatus;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

/** Prisma queries for usage records, and nothing else. */
@Injectable()
export class UsageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One multi-row INSERT. Rows carry their own id and time, so a batch retried after an error
   * whose commit actually went through is skipped rather than counted twice.
   */
  async insertMany(rows: UsageRow[]): Promise<void> {
    await this.prisma.usageRecord.createMany({ data: rows, skipDuplicates: true });
  }

  /** Counts and sums per group and status; the caller folds the statuses together. */
  async countByGroupAndStatus(query: UsageQuery): Promise<UsageCount[]> {
    const where: Prisma.UsageRecordWhereInput = {
      keyId: query.keyId,
      publicModel: query.model,
      createdAt: { gte: query.from, lt: query.to },
    };
    const aggregates = {
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, latencyMs: true },
    } as const;
    const rows =
      query.groupBy === 'key'
        ? (await this.prisma.usageRecord.groupBy({ by: ['keyId', 'status'], where, ...aggregates })).map((row) => ({ ...row, group: row.keyId }))
        : (await this.prisma.usageRecord.groupBy({ by: ['publicModel', 'status'], where, ...aggregates })).map((row) => ({
            ...row,
            group: row.publicModel,
          }));
    return rows.map((row) => ({
      group: row.group,
      status: row.status,
      requests: row._count._all,
      promptTokens: row._sum.promptTokens ?? 0,
      completionTokens: row._sum.completionTokens ?? 0,
      latencyMs: row._sum.latencyMs ?? 0,
    }));
  }
}
