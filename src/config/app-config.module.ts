import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AppConfig } from './app-config';

/**
 * Provides the settings the process loaded once (loadAppConfig) to every module, as `AppConfig`.
 *
 * ConfigService is still provided, fed from the same object and never from process.env, for the
 * code that has not moved to AppConfig yet (src/completions); it validates nothing.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          skipProcessEnv: true,
          load: [() => ({ ...config })],
        }),
      ],
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
