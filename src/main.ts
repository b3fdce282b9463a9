import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { logLevelsFrom, validateEnvironment } from './config/env.validation';

async function bootstrap(): Promise<void> {
  const env = validateEnvironment(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: logLevelsFrom(env.LOG_LEVEL),
    // A failed start (bad config, database behind) exits with status 1 through the catch below,
    // not with Nest's default abort().
    abortOnError: false,
  });
  configureApp(app);
  const config = app.get(ConfigService);
  const port = config.getOrThrow<number>('PORT');
  const host = config.getOrThrow<string>('HOST');
  await app.listen(port, host);
  Logger.log(`gateway listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/v1`, 'Bootstrap');
}

bootstrap().catch((error: Error) => {
  Logger.error(error.message, 'Bootstrap');
  process.exit(1);
});
