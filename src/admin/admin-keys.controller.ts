import { Body, Controller, Get, Param, Patch, UseGuards } from '@nestjs/common';
import type { AuditScope } from '../audit/audit.types';
import { Public } from '../auth/public.decorator';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Access } from '../identity/access';
import { ChangeScope, CurrentAccess, Requires } from '../identity/current-access.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { AdminGuard } from './admin.guard';
import { assertKnownModels } from './known-models';
import { presentKey } from '../keys/virtual-key.presenter';
import { toKeySettings } from './dto/key-settings.dto';
import { UpdateKeyDto } from './dto/update-key.dto';
import { KEY_OF_ANOTHER } from './key-access';
import { KeyActionsController } from './key-actions.controller';
import { KeyActionsService } from './key-actions.service';
import { IdOrNameParam } from './dto/id-or-name.param';

/**
 * Key management over HTTP. `:id` takes a key's id or its name, as the CLI does. Roles narrow
 * what each caller reaches (docs/sso.md, "Roles"): a team admin their teams' keys, a member the
 * keys they created; another's key is a 403. Create, revoke and rotate are KeyActionsController's,
 * shared with the dashboard.
 */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminGuard)
@Controller('admin/keys')
export class AdminKeysController extends KeyActionsController {
  constructor(
    private readonly keys: VirtualKeyService,
    private readonly models: GatewayConfigService,
    actions: KeyActionsService,
  ) {
    super(actions);
  }

  @Get()
  @Requires('keys.read')
  async list(@CurrentAccess() access: Access) {
    const keys = (await this.keys.list()).filter((key) => access.canReadKey(key));
    return { object: 'list', data: keys.map(presentKey) };
  }

  @Get(':id')
  @Requires('keys.read')
  async get(@Param() { id }: IdOrNameParam, @CurrentAccess() access: Access) {
    const key = await this.keys.get(id);
    access.assert(access.canReadKey(key), KEY_OF_ANOTHER);
    return presentKey(key);
  }

  @Patch(':id')
  @Requires('keys.update')
  async update(
    @Param() { id }: IdOrNameParam,
    @Body() body: UpdateKeyDto,
    @CurrentAccess() access: Access,
    @ChangeScope() scope: AuditScope,
  ) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    const key = await this.keys.get(id);
    access.assert(
      access.canUpdateKey(key, body.team_id),
      access.canUpdateKey(key, undefined)
        ? 'A team admin may move a key only into a team they administer.'
        : KEY_OF_ANOTHER,
    );
    return presentKey(
      await this.keys.update(key.id, { name: body.name, ...toKeySettings(body) }, scope),
    );
  }
}
