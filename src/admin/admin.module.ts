import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { KeysModule } from '../keys/keys.module';
import { LimitsModule } from '../limits/limits.module';
import { AdminAuditController } from './admin-audit.controller';
import { AdminConfigController } from './admin-config.controller';
import { AdminKeysController } from './admin-keys.controller';
import { AdminUsageController } from './admin-usage.controller';
import { AdminTeamsController } from './admin-teams.controller';
import { AdminSpendController } from './admin-spend.controller';
import { KeyActionsService } from './key-actions.service';

/** Admin requests carry small JSON documents: 100 KiB is plenty, where completions need 1 MiB of messages. */
export const ADMIN_BODY_LIMIT = '100kb';

/**
 * The internal admin API under /admin (operator endpoints, outside the OpenAI-compatible /v1
 * contract; docs/admin-api.md): key management, usage reports and the audit log, on the same
 * services as the CLI and seed, for the admin key or a bearer JWT of the identity provider.
 */
@Module({
  imports: [KeysModule, LimitsModule, IdentityModule],
  controllers: [
    AdminKeysController,
    AdminTeamsController,
    AdminUsageController,
    AdminSpendController,
    AdminConfigController,
    AdminAuditController,
  ],
  providers: [KeyActionsService],
})
export class AdminModule {}
