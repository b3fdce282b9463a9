import { Body, Header, HttpCode, Param, Post } from '@nestjs/common';
import type { AuditScope } from '../audit/audit.types';
import type { Access } from '../identity/access';
import { ChangeScope, CurrentAccess, Requires } from '../identity/current-access.decorator';
import { CreateKeyDto } from './dto/create-key.dto';
import { IdOrNameParam } from './dto/id-or-name.param';
import { RotateKeyDto } from './dto/rotate-key.dto';
import { KeyActionsService } from './key-actions.service';

/**
 * The routes for creating, revoking and rotating a key, declared once: AdminKeysController and
 * DashboardKeysController extend it under their own path and guard. A created or rotated key's
 * answer holds its secret, shown once: no cache may keep it.
 */
export abstract class KeyActionsController {
  constructor(protected readonly actions: KeyActionsService) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @Requires('keys.write')
  create(
    @Body() body: CreateKeyDto,
    @CurrentAccess() access: Access,
    @ChangeScope() scope: AuditScope,
  ) {
    return this.actions.create(body, access, scope);
  }

  @Post(':id/revoke')
  @HttpCode(200)
  @Requires('keys.write')
  revoke(
    @Param() { id }: IdOrNameParam,
    @CurrentAccess() access: Access,
    @ChangeScope() scope: AuditScope,
  ) {
    return this.actions.revoke(id, access, scope);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Requires('keys.write')
  rotate(
    @Param() { id }: IdOrNameParam,
    @Body() body: RotateKeyDto,
    @CurrentAccess() access: Access,
    @ChangeScope() scope: AuditScope,
  ) {
    return this.actions.rotate(id, body, access, scope);
  }
}
