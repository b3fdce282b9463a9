import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { ConfigReloadSignal } from './config-reload.signal';
import { GatewayConfigService } from './gateway-config.service';

/** The model routing table (GATEWAY_CONFIG, or the embedded mock defaults) and its reload signal. */
@Global()
@Module({
  providers: [
    {
      provide: GatewayConfigService,
      inject: [AppConfig],
      useFactory: GatewayConfigService.fromEnvironment,
    },
    ConfigReloadSignal,
  ],
  exports: [GatewayConfigService],
})
export class GatewayConfigModule {}
