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

  /** A new key has a fresh random secret that no instance can have cached: no announcement. */
  create(data: Prisma.VirtualKeyCreateInput): Promise<VirtualKey> {
    return this.prisma.virtualKey.create({ data });
  }

  upsertByName(
    name: string,
    create: Prisma.VirtualKeyCreateInput,
    update: Prisma.VirtualKeyUpdateInput,
  ): Promise<VirtualKey> {
    return this.writeAndAnnounce((tx) => tx.virtualKey.upsert({ where: { name }, create, update }));
  }

  update(id: string, data: Prisma.VirtualKeyUpdateInput): Promise<VirtualKey> {
    return this.writeAndAnnounce((tx) => tx.virtualKey.update({ where: { id }, data }));
  }

  /**
   * Writes and announces the change on KEY_CHANGE_CHANNEL in one transaction. Postgres delivers
   * the notification only at commit, so no instance refills its cache from the old row, and a
   * change is never committed without its announcement.
   */
  private writeAndAnnounce(
    write: (tx: Prisma.TransactionClient) => Promise<VirtualKey>,
  ): Promise<VirtualKey> {
    return this.prisma.$transaction(async (tx) => {
      const key = await write(tx);
      // $executeRaw, not $queryRaw: pg_notify returns void, a column type Prisma cannot read.
      await tx.$executeRaw`SELECT pg_notify(${KEY_CHANGE_CHANNEL}, ${key.id})`;
      return key;
    });
  }
}
