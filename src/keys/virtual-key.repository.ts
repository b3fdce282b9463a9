import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, VirtualKey } from '../generated/prisma/client';

/** Prisma queries for virtual keys, and nothing else. */
@Injectable()
export class VirtualKeyRepository {
  constructor(private readonly prisma: PrismaService) {}

  findBySecretHash(secretHash: string): Promise<VirtualKey | null> {
    return this.prisma.virtualKey.findUnique({ where: { secretHash } });
  }

  findByName(name: string): Promise<VirtualKey | null> {
    return this.prisma.virtualKey.findUnique({ where: { name } });
  }

  findById(id: string): Promise<VirtualKey | null> {
    return this.prisma.virtualKey.findUnique({ where: { id } });
  }

  list(): Promise<VirtualKey[]> {
    return this.prisma.virtualKey.findMany({ orderBy: { createdAt: 'asc' } });
  }

  count(): Promise<number> {
    return this.prisma.virtualKey.count();
  }

  create(data: Prisma.VirtualKeyCreateInput): Promise<VirtualKey> {
    return this.prisma.virtualKey.create({ data });
  }

  upsertByName(name: string, create: Prisma.VirtualKeyCreateInput, update: Prisma.VirtualKeyUpdateInput): Promise<VirtualKey> {
    return this.prisma.virtualKey.upsert({ where: { name }, create, update });
  }

  update(id: string, data: Prisma.VirtualKeyUpdateInput): Promise<VirtualKey> {
    return this.prisma.virtualKey.update({ where: { id }, data });
  }
}
