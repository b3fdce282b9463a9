import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { GatewayConfigService } from '../config/gateway-config.service';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';

/** Reloads GATEWAY_CONFIG without a restart, as SIGHUP does; for hosts where signals are awkward. */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminThrottlerGuard, AdminGuard)
@Controller('admin/config')
export class AdminConfigController {
  constructor(private readonly config: GatewayConfigService) {}

  @Post('reload')
  @HttpCode(200)
  reload() {
    const result = this.config.reload();
    if (!result.reloaded)
      throw new GatewayException('invalid_gateway_config', { message: result.error });
    return { object: 'config_reload', source: result.source, models: result.models };
  }
}
