import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, Team } from '../generated/prisma/client';

/** Prisma queries for teams, and nothing else. */
@Injectable()
export class TeamsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(data: Prisma.TeamCreateInput): Promise<Team> {
    return this.prisma.team.create({ data });
  }

  list(): Promise<Team[]> {
    return this.prisma.team.findMany({ orderBy: { createdAt: 'asc' } });
  }

  findById(id: string): Promise<Team | null> {
    return this.prisma.team.findUnique({ where: { id } });
  }

  findByName(name: string): Promise<Team | null> {
    return this.prisma.team.findUnique({ where: { name } });
  }

  update(id: string, data: Prisma.TeamUpdateInput): Promise<Team> {
    return this.prisma.team.update({ where: { id }, data });
  }

  /** Member keys leave the team (the foreign key sets their team_id to null). */
  delete(id: string): Promise<Team> {
    return this.prisma.team.delete({ where: { id } });
  }

  memberCount(id: string): Promise<number> {
    return this.prisma.virtualKey.count({ where: { teamId: id } });
  }
}
