import { Module } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import { IdentityModule } from '../identity/identity.module';
import { KeysModule } from '../keys/keys.module';
import { CounterStore } from '../limits/counters/counter-store';
import { LimitsModule } from '../limits/limits.module';
import { CounterThrottlerStorage } from '../throttling/counter-throttler.storage';
import { AdminAuditController } from './admin-audit.controller';
import { AdminConfigController } from './admin-config.controller';
import { AdminKeysController } from './admin-keys.controller';
import { AdminThrottlerOptions, AdminThrottlerStorage } from './admin-throttler.guard';
import { AdminUsageController } from './admin-usage.controller';
import { AdminTeamsController } from './admin-teams.controller';
import { AdminSpendController } from './admin-spend.controller';
import { AppConfig } from '../config/app-config';

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
  providers: [
    {
      provide: AdminThrottlerOptions,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ThrottlerModuleOptions => ({
        throttlers: [
          {
            name: 'default',
            limit: config.ADMIN_RATE_LIMIT,
            ttl: config.ADMIN_RATE_WINDOW_MS,
          },
        ],
      }),
    },
    // The gateway's counter store: shared by every instance once REDIS_URL is set, so the limit holds behind a load balancer,
    // per instance in memory otherwise, with the same Redis failure policy as the key limits.
    {
      provide: AdminThrottlerStorage,
      inject: [CounterStore],
      useFactory: (counters: CounterStore) => new CounterThrottlerStorage(counters),
    },
  ],
})
export class AdminModule {}
