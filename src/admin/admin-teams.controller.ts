import { Body, Controller, Delete, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import type { AuditScope } from '../audit/audit.types';
import { Public } from '../auth/public.decorator';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Access } from '../identity/access';
import { ChangeScope, CurrentAccess, Requires } from '../identity/current-access.decorator';
import { presentTeam, TeamsService } from '../teams/teams.service';
import { AdminGuard } from './admin.guard';
import { assertKnownModels } from './known-models';
import { CreateTeamDto, toTeamSettings, UpdateTeamDto } from './dto/team.dto';
import { IdOrNameParam } from './dto/id-or-name.param';

/**
 * Team management over HTTP (docs/spend.md). `:id` takes a team's id or its name. Changes are
 * the admin's; a team admin reads their own teams (docs/sso.md, "Roles").
 */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminGuard)
@Controller('admin/teams')
export class AdminTeamsController {
  constructor(
    private readonly teams: TeamsService,
    private readonly models: GatewayConfigService,
  ) {}

  @Post()
  @Requires('teams.write')
  async create(@Body() body: CreateTeamDto, @ChangeScope() scope: AuditScope) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentTeam(
      await this.teams.create({ name: body.name, ...toTeamSettings(body) }, scope),
    );
  }

  @Get()
  @Requires('teams.read')
  async list(@CurrentAccess() access: Access) {
    const teams = (await this.teams.list()).filter((team) => access.canReadTeam(team.id));
    return { object: 'list', data: teams.map(presentTeam) };
  }

  @Get(':id')
  @Requires('teams.read')
  async get(@Param() { id }: IdOrNameParam, @CurrentAccess() access: Access) {
    const team = await this.teams.get(id);
    access.assert(access.canReadTeam(team.id), 'This team is outside your role.');
    return presentTeam(team);
  }

  @Patch(':id')
  @Requires('teams.write')
  async update(
    @Param() { id }: IdOrNameParam,
    @Body() body: UpdateTeamDto,
    @ChangeScope() scope: AuditScope,
  ) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentTeam(
      await this.teams.update(id, { name: body.name, ...toTeamSettings(body) }, scope),
    );
  }

  /** Member keys stay, without a team. */
  @Delete(':id')
  @Requires('teams.write')
  async remove(@Param() { id }: IdOrNameParam, @ChangeScope() scope: AuditScope) {
    const { team, keysLeft } = await this.teams.remove(id, scope);
    return { ...presentTeam(team), deleted: true, keys_left_team: keysLeft };
  }
}
