import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { jsonBodyMiddleware } from '../common/http/json-body.middleware';
import { IdentityModule } from '../identity/identity.module';
import { PipelineModule } from '../pipeline/pipeline.module';
import { KeysModule } from '../keys/keys.module';
import { LimitsModule } from '../limits/limits.module';
import { DashboardApiController } from './dashboard-api.controller';
import { DashboardAuditController } from './dashboard-audit.controller';
import { DashboardKeysController } from './dashboard-keys.controller';
import { dashboardSecurityHeaders } from './dashboard-security.middleware';
import { DashboardSessionController } from './dashboard-session.controller';
import { DashboardSessionGuard } from './dashboard-session.guard';
import { DashboardSessionService } from './dashboard-session.service';
import { DashboardSsoController } from './dashboard-sso.controller';
import { dashboardSettingsFrom, DashboardSettings } from './dashboard-settings';
import { DashboardStaticController } from './dashboard-static.controller';
import { DashboardUsageService } from './dashboard-usage.service';
import { AppConfig } from '../config/app-config';
import { KeyActionsService } from '../admin/key-actions.service';

/** The dashboard's collection endpoints take small JSON bodies: 100 KiB, like the admin API. */
export const DASHBOARD_BODY_LIMIT = '100kb';

/**
 * The admin dashboard at /dashboard (docs/dashboard.md): a static page built from web/dashboard, and its
 * collection endpoints under /dashboard/api, signed in with the admin key or through the identity
 * provider (docs/sso.md). Off (404) without ADMIN_API_KEY and OIDC_ISSUER_URL, like the admin API.
 */
@Module({
  imports: [KeysModule, LimitsModule, PipelineModule, IdentityModule],
  controllers: [
    DashboardSessionController,
    DashboardSsoController,
    DashboardApiController,
    DashboardKeysController,
    DashboardAuditController,
    DashboardStaticController,
  ],
  providers: [
    { provide: DashboardSettings, inject: [AppConfig], useFactory: dashboardSettingsFrom },
    DashboardSessionService,
    DashboardSessionGuard,
    DashboardUsageService,
    KeyActionsService,
  ],
})
export class DashboardModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(dashboardSecurityHeaders)
      .forRoutes(
        { path: 'dashboard', method: RequestMethod.ALL },
        { path: 'dashboard/*path', method: RequestMethod.ALL },
      );
    consumer
      .apply(jsonBodyMiddleware(DASHBOARD_BODY_LIMIT))
      .forRoutes({ path: 'dashboard/api/*path', method: RequestMethod.ALL });
  }
}
