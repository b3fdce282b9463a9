import { Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { validateEnvironment } from './env.validation';
import { ConfigReloadSignal } from './config-reload.signal';
import { GatewayConfigService } from './gateway-config.service';

@Global()
@Module({
  imports: [ConfigModule.forRoot({ isGlobal: true, cache: true, validate: validateEnvironment })],
  providers: [
    {
      provide: GatewayConfigService,
      inject: [ConfigService],
      useFactory: GatewayConfigService.fromEnvironment,
    },
    ConfigReloadSignal,
  ],
  exports: [GatewayConfigService],
})
export class AppConfigModule {}
