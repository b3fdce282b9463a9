import { Body, Controller, Delete, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { GatewayConfigService } from '../config/gateway-config.service';
import { presentTeam, TeamsService } from '../teams/teams.service';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';
import { assertKnownModels } from './known-models';
import { CreateTeamDto, toTeamSettings, UpdateTeamDto } from './dto/team.dto';

/** Team management over HTTP (docs/spend.md). `:id` takes a team's id or its name. */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminThrottlerGuard, AdminGuard)
@Controller('admin/teams')
export class AdminTeamsController {
  constructor(
    private readonly teams: TeamsService,
    private readonly models: GatewayConfigService,
  ) {}

  @Post()
  async create(@Body() body: CreateTeamDto) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentTeam(await this.teams.create({ name: body.name, ...toTeamSettings(body) }));
  }

  @Get()
  async list() {
    return { object: 'list', data: (await this.teams.list()).map(presentTeam) };
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    return presentTeam(await this.teams.get(id));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: UpdateTeamDto) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentTeam(await this.teams.update(id, { name: body.name, ...toTeamSettings(body) }));
  }

  /** Member keys stay, without a team. */
  @Delete(':id')
  async remove(@Param('id') id: string) {
    const { team, keysLeft } = await this.teams.remove(id);
    return { ...presentTeam(team), deleted: true, keys_left_team: keysLeft };
  }
}
