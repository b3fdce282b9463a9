import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { embeddedDefaultConfig, loadGatewayConfig } from './gateway-config.loader';
import { DeploymentConfig, GatewayConfig } from './gateway-config.types';

/** The model routing table, loaded and validated once at boot. */
export class GatewayConfigService {
  constructor(readonly config: GatewayConfig) {}

  static fromEnvironment(env: ConfigService): GatewayConfigService {
    const logger = new Logger(GatewayConfigService.name);
    const path = env.get<string>('GATEWAY_CONFIG');
    const service = new GatewayConfigService(path ? loadGatewayConfig(path) : embeddedDefaultConfig());
    if (path) logger.log(`Loaded ${service.config.models.size} public model(s) from ${path}`);
    else logger.warn(`GATEWAY_CONFIG is not set: serving ${service.publicModels().join(', ')} with the built-in mock adapter`);
    return service;
  }

  publicModels(): string[] {
    return [...this.config.models.keys()];
  }

  deploymentsFor(model: string): DeploymentConfig[] | undefined {
    return this.config.models.get(model);
  }
}
