import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, VirtualKey } from '../generated/prisma/client';
import { KEY_CHANGE_CHANNEL } from './virtual-key-events';

/** Prisma queries for virtual keys, and nothing else. */
@Injectable()
export class VirtualKeyRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One round trip for a secret that may be a key's current or its rotated-out one. */
  findByCurrentOrPreviousSecretHash(secretHash: string): Promise<VirtualKey[]> {
    return this.prisma.virtualKey.findMany({
      where: { OR: [{ secretHash }, { previousSecretHash: secretHash }] },
      take: 2,
    });
  }

  findByName(name: string): Promise<VirtualKey | null> {
    return this.prisma.virtualKey.findUnique({ where: { name } });
  }

  findById(id: string): Promise<VirtualKey | null> {
    return this.prisma.virtualKey.findUnique({ where: { id } });
  }

  findByIds(ids: string[]): Promise<VirtualKey[]> {
    return this.prisma.virtualKey.findMany({ where: { id: { in: ids } } });
  }

  list(): Promise<VirtualKey[]> {
    return this.prisma.virtualKey.findMany({ orderBy: { createdAt: 'asc' } });
  }

  async teamExists(id: string): Promise<boolean> {
    return (await this.prisma.team.count({ where: { id } })) > 0;
  }

  count(): Promise<number> {
    return this.prisma.virtualKey.count();
  }

  /**
   * A new key and its audit row, in one transaction. A new key has a fresh random secret that no
   * instance can have cached: no announcement.
   */
  create(data: Prisma.VirtualKeyCreateInput, audit: KeyAuditWrite): Promise<VirtualKey> {
    return this.prisma.$transaction(async (tx) => {
      const key = await tx.virtualKey.create({ data });
      await audit(tx, null, key);
      return key;
    });
  }

  upsertByName(
    name: string,
    create: Prisma.VirtualKeyCreateInput,
    update: Prisma.VirtualKeyUpdateInput,
    audit: KeyAuditWrite,
  ): Promise<VirtualKey> {
    return this.writeAndAnnounce(
      { name },
      (tx) => tx.virtualKey.upsert({ where: { name }, create, update }),
      audit,
    );
  }

  update(
    id: string,
    data: Prisma.VirtualKeyUpdateInput,
    audit: KeyAuditWrite,
  ): Promise<VirtualKey> {
    return this.writeAndAnnounce(
      { id },
      (tx) => tx.virtualKey.update({ where: { id }, data }),
      audit,
    );
  }

  /**
   * Writes, records and announces the change on KEY_CHANGE_CHANNEL in one transaction: a change
   * is never committed without its audit row or its announcement. Postgres delivers the
   * notification only at commit, so no instance refills its cache from the old row. The row is
   * locked first, so the audit's "before" is the version this write replaced.
   */
  private writeAndAnnounce(
    where: { id: string } | { name: string },
    write: (tx: Prisma.TransactionClient) => Promise<VirtualKey>,
    audit: KeyAuditWrite,
  ): Promise<VirtualKey> {
    return this.prisma.$transaction(async (tx) => {
      if ('id' in where)
        await tx.$executeRaw`SELECT 1 FROM virtual_keys WHERE id = ${where.id}::uuid FOR UPDATE`;
      else await tx.$executeRaw`SELECT 1 FROM virtual_keys WHERE name = ${where.name} FOR UPDATE`;
      const before = await tx.virtualKey.findUnique({ where });
      const key = await write(tx);
      await audit(tx, before, key);
      // $executeRaw, not $queryRaw: pg_notify returns void, a column type Prisma cannot read.
      await tx.$executeRaw`SELECT pg_notify(${KEY_CHANGE_CHANNEL}, ${key.id})`;
      return key;
    });
  }
}

/** Writes the audit row of a key change inside its transaction; `before` is null for a new key. */
export type KeyAuditWrite = (
  tx: Prisma.TransactionClient,
  before: VirtualKey | null,
  after: VirtualKey,
) => Promise<void>;
