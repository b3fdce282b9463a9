import { MiddlewareConsumer, Module, NestModule, RequestMethod, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { jsonBodyMiddleware } from './common/http/json-body.middleware';
import { OpenAiExceptionFilter } from './common/filters/openai-exception.filter';
import { validationExceptionFactory } from './common/validation/validation-exception.factory';
import { CompletionsModule } from './completions/completions.module';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { DemoKeyService } from './keys/demo-key.service';
import { KeysModule } from './keys/keys.module';
import { ThrottlingModule } from './throttling/throttling.module';

/** Spec 4.1: chat-completion bodies up to 1 MiB (Express would stop at 100 kb). */
export const COMPLETIONS_BODY_LIMIT = '1mb';

@Module({
  imports: [
    AppConfigModule,
    DatabaseModule.forRoot(),
    KeysModule,
    AuthModule,
    ThrottlingModule,
    CompletionsModule,
    HealthModule,
  ],
  providers: [
    DemoKeyService,
    { provide: APP_FILTER, useClass: OpenAiExceptionFilter },
    {
      provide: APP_PIPE,
      useValue: new ValidationPipe({
        whitelist: true,
        transform: true,
        forbidUnknownValues: false,
        exceptionFactory: validationExceptionFactory,
      }),
    },
  ],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(jsonBodyMiddleware(COMPLETIONS_BODY_LIMIT)).forRoutes({ path: 'v1/*path', method: RequestMethod.ALL });
  }
}
