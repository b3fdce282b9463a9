import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { embeddedDefaultConfig, loadGatewayConfig } from './gateway-config.loader';
import { DeploymentConfig, GatewayConfig } from './gateway-config.types';

/** The model routing table, loaded and validated once at boot. */
@Injectable()
export class GatewayConfigService {
  private readonly logger = new Logger(GatewayConfigService.name);
  readonly config: GatewayConfig;

  constructor(env: ConfigService) {
    const path = env.get<string>('GATEWAY_CONFIG');
    this.config = path ? loadGatewayConfig(path) : embeddedDefaultConfig();
    if (this.config.source === 'embedded-defaults') {
      this.logger.warn(
        `GATEWAY_CONFIG is not set: serving ${this.publicModels().join(', ')} with the built-in mock adapter`,
      );
    } else {
      this.logger.log(`Loaded ${this.config.models.size} public model(s) from ${path}`);
    }
  }

  publicModels(): string[] {
    return [...this.config.models.keys()];
  }

  deploymentsFor(model: string): DeploymentConfig[] | undefined {
    return this.config.models.get(model);
  }
}
