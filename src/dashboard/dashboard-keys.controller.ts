import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { KeyActionsController } from '../admin/key-actions.controller';
import { KeyActionsService } from '../admin/key-actions.service';
import { Public } from '../auth/public.decorator';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Access } from '../identity/access';
import { CurrentAccess, Requires } from '../identity/current-access.decorator';
import { presentKey } from '../keys/virtual-key.presenter';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { BUDGET_PERIODS } from '../keys/virtual-key.types';
import { TeamsService } from '../teams/teams.service';
import { DashboardSessionGuard } from './dashboard-session.guard';
import { DashboardUsageService } from './dashboard-usage.service';
import { ListKeysQuery } from './dto/list-keys.query';

/**
 * The Keys page: the keys in the signed-in person's reach (all for an admin or a viewer, their
 * teams' for a team admin, their own for a member), and the actions their role allows, enforced
 * here as on the admin API (create, revoke and rotate are KeyActionsController's, shared with it).
 */
@Public() // no virtual key: DashboardSessionGuard checks the session instead
@UseGuards(DashboardSessionGuard)
@Controller('dashboard/api/keys')
export class DashboardKeysController extends KeyActionsController {
  constructor(
    private readonly keys: VirtualKeyService,
    private readonly teams: TeamsService,
    private readonly models: GatewayConfigService,
    private readonly usage: DashboardUsageService,
    actions: KeyActionsService,
  ) {
    super(actions);
  }

  /** One page of keys with their last use, and what the create form offers. */
  @Get()
  @Requires('keys.read')
  async list(@Query() query: ListKeysQuery, @CurrentAccess() access: Access) {
    const perPage = query.per_page ?? 20;
    const page = query.page ?? 1;
    const search = query.search?.trim().toLowerCase();
    // Newest first, so a key just created is on the first page.
    const all = (await this.keys.list())
      .filter((key) => access.canReadKey(key))
      .filter(
        (key) =>
          !search ||
          key.name.toLowerCase().includes(search) ||
          key.keyPrefix.toLowerCase().includes(search),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const slice = all.slice((page - 1) * perPage, page * perPage);
    const lastUsed = await this.usage.lastUsed(slice.map((key) => key.id));
    const teams = await this.teams.list();
    const teamNames = new Map(teams.map((team) => [team.id, team.name]));
    return {
      object: 'list',
      data: slice.map((key) => ({
        ...presentKey(key),
        team_name: key.teamId ? (teamNames.get(key.teamId) ?? null) : null,
        last_used_at: lastUsed.get(key.id)?.toISOString() ?? null,
        can_write: access.canWriteKey(key),
      })),
      page,
      per_page: perPage,
      total: all.length,
      models: this.models.publicModels(),
      create: {
        allowed: access.can('keys.write'),
        without_team: access.canCreateKey(null),
        teams: teams
          .filter((team) => access.canCreateKey(team.id))
          .map((team) => ({ id: team.id, name: team.name })),
        // The form offers exactly the periods the API takes.
        budget_periods: BUDGET_PERIODS,
      },
    };
  }
}
