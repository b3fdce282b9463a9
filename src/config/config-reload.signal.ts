import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfigService } from './gateway-config.service';

/**
 * SIGHUP re-reads GATEWAY_CONFIG, the usual meaning of the signal for a daemon (`kill -HUP <pid>`,
 * `docker kill --signal HUP`). Nest's shutdown hooks are installed without SIGHUP (app.setup.ts),
 * so the signal no longer stops the process.
 */
@Injectable()
export class ConfigReloadSignal implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly onSignal = () => void this.config.reload();

  constructor(private readonly config: GatewayConfigService) {}

  onApplicationBootstrap(): void {
    process.on('SIGHUP', this.onSignal);
  }

  onApplicationShutdown(): void {
    process.off('SIGHUP', this.onSignal);
  }
}
