import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, Team } from '../generated/prisma/client';

/** Prisma queries for teams, and nothing else. */
@Injectable()
export class TeamsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A new team and its audit row, in one transaction. */
  create(data: Prisma.TeamCreateInput, audit: TeamAuditWrite): Promise<Team> {
    return this.prisma.$transaction(async (tx) => {
      const team = await tx.team.create({ data });
      await audit(tx, null, team);
      return team;
    });
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

  /** The change and its audit row in one transaction; the row is locked so "before" is exact. */
  update(id: string, data: Prisma.TeamUpdateInput, audit: TeamAuditWrite): Promise<Team> {
    return this.prisma.$transaction(async (tx) => {
      const before = await lock(tx, id);
      const team = await tx.team.update({ where: { id }, data });
      await audit(tx, before, team);
      return team;
    });
  }

  /**
   * Member keys leave the team (the foreign key sets their team_id to null). Returns the team as
   * it was and how many keys left it; the audit row commits with the deletion.
   */
  delete(id: string, audit: TeamAuditWrite): Promise<{ team: Team; keysLeft: number }> {
    return this.prisma.$transaction(async (tx) => {
      const before = await lock(tx, id);
      const keysLeft = await tx.virtualKey.count({ where: { teamId: id } });
      const team = await tx.team.delete({ where: { id } });
      await audit(tx, before ?? team, null);
      return { team, keysLeft };
    });
  }
}

async function lock(tx: Prisma.TransactionClient, id: string): Promise<Team | null> {
  await tx.$executeRaw`SELECT 1 FROM teams WHERE id = ${id}::uuid FOR UPDATE`;
  return tx.team.findUnique({ where: { id } });
}

/** Writes the audit row of a team change inside its transaction (null: created / deleted). */
export type TeamAuditWrite = (
  tx: Prisma.TransactionClient,
  before: Team | null,
  after: Team | null,
) => Promise<void>;
