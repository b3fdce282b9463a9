import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { validateEnvironment } from './env.validation';
import { GatewayConfigService } from './gateway-config.service';

@Global()
@Module({
  imports: [ConfigModule.forRoot({ isGlobal: true, cache: true, validate: validateEnvironment })],
  providers: [GatewayConfigService],
  exports: [GatewayConfigService],
})
export class AppConfigModule {}
