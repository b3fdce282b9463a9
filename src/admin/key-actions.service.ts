import { Injectable } from '@nestjs/common';
import type { AuditScope } from '../audit/audit.types';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Access } from '../identity/access';
import { presentCreatedKey, presentKey } from '../keys/virtual-key.presenter';
import { VirtualKeyService } from '../keys/virtual-key.service';
import type { CreateKeyDto } from './dto/create-key.dto';
import { toKeySettings } from './dto/key-settings.dto';
import { DEFAULT_ROTATION_GRACE_SECONDS, type RotateKeyDto } from './dto/rotate-key.dto';
import { assertMayCreateKey, KEY_OF_ANOTHER } from './key-access';
import { assertKnownModels } from './known-models';

/**
 * The key actions the admin API and the dashboard both expose, with the role checks in front of
 * them, written once so that the two surfaces cannot drift apart.
 */
@Injectable()
export class KeyActionsService {
  constructor(
    private readonly keys: VirtualKeyService,
    private readonly models: GatewayConfigService,
  ) {}

  async create(body: CreateKeyDto, access: Access, scope: AuditScope) {
    assertKnownModels(this.models.publicModels(), body.allowed_models);
    assertMayCreateKey(access, body.team_id);
    return presentCreatedKey(
      await this.keys.create(
        { name: body.name, ...toKeySettings(body), ownerUserId: access.principal.userId },
        scope,
      ),
    );
  }

  async revoke(idOrName: string, access: Access, scope: AuditScope) {
    const key = await this.keys.get(idOrName);
    access.assert(access.canWriteKey(key), KEY_OF_ANOTHER);
    return presentKey(await this.keys.revoke(key.id, scope));
  }

  async rotate(idOrName: string, body: RotateKeyDto, access: Access, scope: AuditScope) {
    const key = await this.keys.get(idOrName);
    access.assert(access.canWriteKey(key), KEY_OF_ANOTHER);
    return presentCreatedKey(
      await this.keys.rotate(
        key.id,
        { graceSeconds: body.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS },
        scope,
      ),
    );
  }
}
