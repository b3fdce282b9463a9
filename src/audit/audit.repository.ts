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
   * Deletes rows created before `cutoff`. The table's trigger refuses every DELETE but one made
   * in a transaction that has set gateway.audit_retention, which only this method does.
   */
  deleteBefore(cutoff: Date): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('gateway.audit_retention', 'on', true)`;
      return (await tx.auditLog.deleteMany({ where: { createdAt: { lt: cutoff } } })).count;
    });
  }
}
