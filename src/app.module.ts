import { TeamsModule } from './teams/teams.module';
import { DynamicModule, Logger, Module, OnModuleDestroy } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AdminModule } from './admin/admin.module';
import { AuditModule } from './audit/audit.module';
import { SYSTEM_ACTOR } from './audit/audit.types';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { ErrorEnvelopesModule } from './common/filters/error-envelopes.module';
import { GatewayExceptionFilter } from './common/filters/gateway-exception.filter';
import { pinoParams } from './common/logging/pino-options';
import { GatewayValidationPipe } from './common/validation/gateway-validation.pipe';
import { AppConfig } from './config/app-config';
import { AppConfigModule } from './config/app-config.module';
import { GatewayConfigModule } from './config/gateway-config.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { AnthropicMessagesModule } from './formats/anthropic-messages/anthropic-messages.module';
import { ChatCompletionsModule } from './formats/chat-completions/chat-completions.module';
import { EmbeddingsModule } from './formats/embeddings/embeddings.module';
import { DatabaseModule } from './database/database.module';
import { ResponsesModule } from './formats/responses/responses.module';
import { HealthModule } from './health/health.module';
import { OpenApiModule } from './openapi/openapi.module';
import { DemoKeyService } from './keys/demo-key.service';
import { KeysModule } from './keys/keys.module';
import { MetricsModule } from './metrics/metrics.module';
import { ModelsModule } from './models/models.module';
import { TracingModule } from './tracing/tracing.module';
import { RequestDrain } from './usage/request-drain.service';
import { UsageModule } from './usage/usage.module';
import { ThrottlingModule } from './throttling/throttling.module';

@Module({
  imports: [
    GatewayConfigModule,
    ErrorEnvelopesModule,
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: pinoParams }),
    MetricsModule,
    TracingModule,
    DatabaseModule.forRoot(),
    AuditModule.forRoot({ defaultActor: SYSTEM_ACTOR, retention: true }),
    UsageModule,
    KeysModule,
    TeamsModule,
    AuthModule,
    ThrottlingModule,
    ChatCompletionsModule,
    AnthropicMessagesModule,
    ResponsesModule,
    EmbeddingsModule,
    ModelsModule,
    AdminModule,
    HealthModule,
    OpenApiModule,
    DashboardModule,
  ],
  providers: [
    DemoKeyService,
    // Every global enhancer is registered here, so one file shows what runs on each request:
    // the virtual-key check (routes opt out with @Public()), the error envelope of the request's
    // wire format and body validation.
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: GatewayExceptionFilter },
    { provide: APP_PIPE, useClass: GatewayValidationPipe },
  ],
})
export class AppModule implements OnModuleDestroy {
  /** The gateway with the settings the process loaded (loadAppConfig). */
  static forRoot(config: AppConfig): DynamicModule {
    return { module: AppModule, imports: [AppConfigModule.forRoot(config)] };
  }

  constructor(private readonly requests: RequestDrain) {}

  /**
   * The first step of a graceful shutdown: Nest destroys the root module before the modules it
   * imports, so running requests finish while everything they use is still open. The usage
   * flush (beforeApplicationShutdown) and closing the database (onApplicationShutdown) follow.
   */
  async onModuleDestroy(): Promise<void> {
    // A log line tells a clean stop from a kill.
    Logger.log(`shutting down: ${this.requests.inFlight} request(s) in flight`, 'Bootstrap');
    await this.requests.drain();
  }
}
