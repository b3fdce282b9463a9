import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { Prisma, type AuditLog } from '../generated/prisma/client';

export interface AuditFilter {
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  /** An actor type (`cli`, `admin_key`...), a user id, an OS user or an e-mail address. */
  actor?: string;
  actions?: string[];
  /** A target's id or name. */
  target?: string;
  /** Only rows older than this one (paging, newest first). */
  beforeId?: bigint;
}

/** Prisma queries for the audit log, and nothing else. There is no update, and delete is retention's. */
@Injectable()
export class AuditRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insert(tx: Prisma.TransactionClient, row: Prisma.AuditLogCreateInput): Promise<void> {
    await tx.auditLog.create({ data: row, select: { id: true } });
  }

  /** Newest first. */
  find(filter: AuditFilter, limit: number): Promise<AuditLog[]> {
    const and: Prisma.AuditLogWhereInput[] = [];
    if (filter.actor)
      and.push({
        OR: [
          { actorType: filter.actor },
          { actorId: filter.actor },
          { actorEmail: { equals: filter.actor, mode: 'insensitive' } },
        ],
      });
    if (filter.target)
      and.push({ OR: [{ targetId: filter.target }, { targetName: filter.target }] });
    return this.prisma.auditLog.findMany({
      where: {
        createdAt: { gte: filter.from, lt: filter.to },
        action: filter.actions ? { in: filter.actions } : undefined,
        id: filter.beforeId !== undefined ? { lt: filter.beforeId } : undefined,
        AND: and,
      },
      orderBy: { id: 'desc' },
      take: limit,
    });
  }

  /**
   * Deletes rows created before `cutoff` through the migration's audit_log_purge(), the one
   * DELETE the table's trigger lets through. One statement rather than a transaction block: the
   * embedded database's socket server interleaves concurrent connections' protocol messages, and
   * a BEGIN among them broke the queries of a first start.
   */
  async deleteBefore(cutoff: Date): Promise<number> {
    const [{ deleted }] = await this.prisma.$queryRaw<Array<{ deleted: number }>>`
      SELECT audit_log_purge(${cutoff}::timestamptz) AS deleted`;
    return deleted;
  }
}
