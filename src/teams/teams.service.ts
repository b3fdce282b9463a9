import { Injectable } from '@nestjs/common';
import { changedFields } from '../audit/audit-redaction';
import { AuditService } from '../audit/audit.service';
import type { AuditAction, AuditScope } from '../audit/audit.types';
import { isUniqueViolation } from '../database/unique-violation';
import { findByIdOrName } from '../common/ids/id-or-name';
import { GatewayException } from '../common/errors/gateway.exception';
import { assertBudget, type BudgetPeriod } from '../common/time/budget-period';
import { Prisma, type Team } from '../generated/prisma/client';
import { TeamAuditWrite, TeamsRepository } from './teams.repository';
import type { CreateTeamInput, TeamView, UpdateTeamInput } from './team.types';

/**
 * How long a team's settings are reused on the request path before they are read again. A change
 * made through this instance applies at once; other instances see it within this time.
 */
const TEAM_CACHE_TTL_MS = 5_000;

/**
 * Team management (admin API and CLI) and the cached lookup the request path uses. Every change
 * writes its audit row in its transaction; `scope` names who made it (the process when absent).
 */
@Injectable()
export class TeamsService {
  private readonly cache = new Map<string, { team: TeamView | null; until: number }>();

  constructor(
    private readonly repository: TeamsRepository,
    private readonly audit: AuditService,
  ) {}

  async create(input: CreateTeamInput, scope?: AuditScope): Promise<TeamView> {
    assertBudget(input.tokenBudget ?? null, input.budgetUsd ?? null, input.budgetPeriod ?? null);
    if (await this.repository.findByName(input.name)) throw nameTaken(input.name);
    const team = await this.uniqueName(input.name, () =>
      this.repository.create(
        {
          name: input.name,
          budgetUsd: input.budgetUsd ?? null,
          tokenBudget: input.tokenBudget ?? null,
          budgetPeriod: input.budgetPeriod ?? null,
          allowedModels: input.allowedModels ?? [],
        },
        this.recordAs('team.create', scope),
      ),
    );
    return this.remember(toView(team));
  }

  async list(): Promise<TeamView[]> {
    return (await this.repository.list()).map(toView);
  }

  /** Every team's name by its id: reports name the teams they group by. */
  async namesById(): Promise<Map<string, string>> {
    return new Map((await this.list()).map((team) => [team.id, team.name]));
  }

  async get(idOrName: string): Promise<TeamView> {
    return toView(await this.find(idOrName));
  }

  async update(idOrName: string, input: UpdateTeamInput, scope?: AuditScope): Promise<TeamView> {
    const team = await this.find(idOrName);
    if (
      input.name !== undefined &&
      input.name !== team.name &&
      (await this.repository.findByName(input.name))
    )
      throw nameTaken(input.name);
    assertBudget(
      input.tokenBudget !== undefined ? input.tokenBudget : team.tokenBudget,
      input.budgetUsd !== undefined ? input.budgetUsd : (team.budgetUsd?.toFixed() ?? null),
      input.budgetPeriod !== undefined
        ? input.budgetPeriod
        : (team.budgetPeriod as BudgetPeriod | null),
    );
    const data: Prisma.TeamUpdateInput = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.budgetUsd !== undefined) data.budgetUsd = input.budgetUsd;
    if (input.tokenBudget !== undefined) data.tokenBudget = input.tokenBudget;
    if (input.budgetPeriod !== undefined) data.budgetPeriod = input.budgetPeriod;
    if (input.allowedModels !== undefined) data.allowedModels = input.allowedModels;
    const updated = await this.uniqueName(input.name ?? team.name, () =>
      this.repository.update(team.id, data, this.recordAs('team.update', scope)),
    );
    return this.remember(toView(updated));
  }

  /** Deletes a team; its keys stay, without a team. Returns how many keys left it. */
  async remove(
    idOrName: string,
    scope?: AuditScope,
  ): Promise<{ team: TeamView; keysLeft: number }> {
    const { team, keysLeft } = await this.repository.delete(
      (await this.find(idOrName)).id,
      this.recordAs('team.delete', scope),
    );
    this.cache.set(team.id, { team: null, until: Date.now() + TEAM_CACHE_TTL_MS });
    return { team: toView(team), keysLeft };
  }

  /** The key's team for the request path, cached for TEAM_CACHE_TTL_MS; null when none. */
  async forKey(key: { teamId: string | null }): Promise<TeamView | null> {
    if (!key.teamId) return null;
    const cached = this.cache.get(key.teamId);
    if (cached && cached.until > Date.now()) return cached.team;
    let found: Team | null;
    try {
      found = await this.repository.findById(key.teamId);
    } catch (error) {
      // Postgres unreachable: the last known settings keep applying rather than failing the
      // request; with none known it is an outage (503), as for key lookups, never a bypass.
      if (cached) return cached.team;
      throw new GatewayException('service_unavailable', {
        message: "The gateway cannot check this API key's team right now. Retry later.",
        headers: { 'retry-after': '1' },
        cause: error,
      });
    }
    const team = found ? toView(found) : null;
    this.cache.set(key.teamId, { team, until: Date.now() + TEAM_CACHE_TTL_MS });
    return team;
  }

  /** By id or by name, as keys are addressed. */
  private async find(idOrName: string): Promise<Team> {
    const team = await findByIdOrName(idOrName, this.repository);
    if (!team)
      throw new GatewayException('team_not_found', {
        message: `No team has the id or name "${idOrName}".`,
      });
    return team;
  }

  /** The audit row of a team change: the whole team when created or deleted, else what changed. */
  private recordAs(action: AuditAction, scope: AuditScope | undefined): TeamAuditWrite {
    return async (tx, before, after) => {
      const old = before && auditSnapshot(before);
      const now = after && auditSnapshot(after);
      const diff = old && now ? changedFields(old, now) : null;
      const team = (after ?? before)!;
      await this.audit.record(
        tx,
        {
          action,
          target: { type: 'team', id: team.id, name: team.name },
          before: old && now ? (diff?.before ?? {}) : old,
          after: old && now ? (diff?.after ?? {}) : now,
        },
        scope,
      );
    };
  }

  private remember(team: TeamView): TeamView {
    this.cache.set(team.id, { team, until: Date.now() + TEAM_CACHE_TTL_MS });
    return team;
  }

  /** Two concurrent creations of one name: the unique index decides, the loser gets a 409. */
  private async uniqueName(name: string, write: () => Promise<Team>): Promise<Team> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }
}

function nameTaken(name: string): GatewayException {
  return new GatewayException('team_name_taken', {
    param: 'name',
    message: `A team named "${name}" exists.`,
  });
}

function toView(team: Team): TeamView {
  return {
    id: team.id,
    name: team.name,
    createdAt: team.createdAt,
    updatedAt: team.updatedAt,
    budgetUsd: team.budgetUsd === null ? null : team.budgetUsd.toFixed(),
    tokenBudget: team.tokenBudget,
    // The database's CHECK constraint admits only these values.
    budgetPeriod: team.budgetPeriod as BudgetPeriod | null,
    allowedModels: team.allowedModels,
  };
}

function auditSnapshot(team: Team): Record<string, unknown> {
  const { updated_at: _updated, ...snapshot } = presentTeam(toView(team));
  return snapshot;
}

/** A team as the admin API and the CLI show it. */
export function presentTeam(team: TeamView) {
  return {
    object: 'team' as const,
    id: team.id,
    name: team.name,
    created_at: team.createdAt.toISOString(),
    updated_at: team.updatedAt.toISOString(),
    budget_usd: team.budgetUsd,
    token_budget: team.tokenBudget,
    budget_period: team.budgetPeriod,
    allowed_models: team.allowedModels,
  };
}
