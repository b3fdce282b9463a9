import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { AuditScope } from '../audit/audit.types';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { AppConfig } from '../config/app-config';
import { loadGatewayConfig } from '../config/gateway-config.loader';
import { GatewayConfigService } from '../config/gateway-config.service';
import { PrismaService } from '../database/prisma.service';
import { ChangeScope, Requires } from '../identity/current-access.decorator';
import { AdminGuard } from './admin.guard';

/** Reloads GATEWAY_CONFIG without a restart, as SIGHUP does; for hosts where signals are awkward. */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminGuard)
@Controller('admin/config')
export class AdminConfigController {
  constructor(
    private readonly config: GatewayConfigService,
    private readonly env: AppConfig,
    private readonly prisma: PrismaService,
    private readonly audit: AuditService,
  ) {}

  /**
   * The audit row is written before the table is swapped, in a transaction that a failed reload
   * rolls back: a reload without its row cannot happen, and a refused one leaves none. The row's
   * "after" is read from the file just before the swap, which reads it again.
   */
  @Post('reload')
  @HttpCode(200)
  @Requires('config.reload')
  async reload(@ChangeScope() scope: AuditScope) {
    const result = await this.prisma.$transaction(async (tx) => {
      const path = this.env.GATEWAY_CONFIG;
      const next = path ? preview(path) : null;
      if (next)
        await this.audit.record(
          tx,
          {
            action: 'config.reload',
            target: { type: 'config', id: null, name: path! },
            before: { models: this.config.publicModels() },
            after: { models: next },
          },
          scope,
        );
      const reloaded = this.config.reload();
      if (!reloaded.reloaded)
        throw new GatewayException('invalid_gateway_config', { message: reloaded.error });
      return reloaded;
    });
    return { object: 'config_reload', source: result.source, models: result.models };
  }
}

/** The public models the file declares; null when it cannot be loaded (the reload says why). */
function preview(path: string): string[] | null {
  try {
    return [...loadGatewayConfig(path).models.keys()];
  } catch {
    return null;
  }
}
