import { Body, Controller, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { GatewayConfigService } from '../config/gateway-config.service';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';
import { assertKnownModels } from './known-models';
import { presentCreatedKey, presentKey } from '../keys/virtual-key.presenter';
import { CreateKeyDto } from './dto/create-key.dto';
import { toKeySettings } from './dto/key-settings.dto';
import { DEFAULT_ROTATION_GRACE_SECONDS, RotateKeyDto } from './dto/rotate-key.dto';
import { UpdateKeyDto } from './dto/update-key.dto';

/** Key management over HTTP. `:id` takes a key's id or its name, as the CLI does. */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminThrottlerGuard, AdminGuard)
@Controller('admin/keys')
export class AdminKeysController {
  constructor(
    private readonly keys: VirtualKeyService,
    private readonly models: GatewayConfigService,
  ) {}

  @Post()
  async create(@Body() body: CreateKeyDto) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentCreatedKey(await this.keys.create({ name: body.name, ...toKeySettings(body) }));
  }

  @Get()
  async list() {
    return { object: 'list', data: (await this.keys.list()).map(presentKey) };
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    return presentKey(await this.keys.get(id));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: UpdateKeyDto) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    return presentKey(await this.keys.update(id, { name: body.name, ...toKeySettings(body) }));
  }

  @Post(':id/revoke')
  @HttpCode(200)
  async revoke(@Param('id') id: string) {
    return presentKey(await this.keys.revoke(id));
  }

  @Post(':id/rotate')
  @HttpCode(200)
  async rotate(@Param('id') id: string, @Body() body: RotateKeyDto) {
    return presentCreatedKey(
      await this.keys.rotate(id, {
        graceSeconds: body.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS,
      }),
    );
  }
}
