import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { Prisma, type AuditLog } from '../generated/prisma/client';
import { redact } from './audit-redaction';
import { AuditFilter, AuditRepository } from './audit.repository';
import {
  AUDIT_DEFAULT_SCOPE,
  type AuditActorType,
  type AuditChange,
  type AuditEntry,
  type AuditScope,
} from './audit.types';

/**
 * Writes audit rows inside the caller's transaction, so a change and its row commit together or
 * not at all, and reads them back for GET /admin/audit and the dashboard's Audit page.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly prisma: PrismaService,
    @Inject(AUDIT_DEFAULT_SCOPE) private readonly defaultScope: AuditScope,
  ) {}

  /**
   * One row in `tx`. Without a scope the change is the process's own: `system` in the gateway
   * (the demo key of a first start), `cli` with the OS user in the command line.
   */
  async record(
    tx: Prisma.TransactionClient,
    change: AuditChange,
    scope: AuditScope = this.defaultScope,
  ): Promise<void> {
    await this.repository.insert(tx, {
      actorType: scope.actor.type,
      actorId: scope.actor.id,
      actorEmail: scope.actor.email,
      action: change.action,
      targetType: change.target.type,
      targetId: change.target.id,
      targetName: change.target.name,
      before: json(change.before),
      after: json(change.after),
      sourceIp: scope.sourceIp,
      requestId: scope.requestId,
    });
  }

  /** A row that records an event with no data change of its own (a failed sign-in, a sign-out). */
  recordAlone(change: AuditChange, scope: AuditScope): Promise<void> {
    return this.prisma.$transaction((tx) => this.record(tx, change, scope));
  }

  /** One page, newest first, and whether older rows match too. */
  async list(filter: AuditFilter, limit: number): Promise<{ rows: AuditEntry[]; more: boolean }> {
    const rows = await this.repository.find(filter, limit + 1);
    return { rows: rows.slice(0, limit).map(toEntry), more: rows.length > limit };
  }

  deleteBefore(cutoff: Date): Promise<number> {
    return this.repository.deleteBefore(cutoff);
  }
}

function json(value: Record<string, unknown> | null | undefined) {
  return value ? (redact(value) as Prisma.InputJsonValue) : Prisma.DbNull;
}

function toEntry(row: AuditLog): AuditEntry {
  return {
    id: row.id.toString(),
    createdAt: row.createdAt,
    actor: { type: row.actorType as AuditActorType, id: row.actorId, email: row.actorEmail },
    action: row.action,
    target: { type: row.targetType, id: row.targetId, name: row.targetName },
    before: row.before,
    after: row.after,
    sourceIp: row.sourceIp,
    requestId: row.requestId,
  };
}
