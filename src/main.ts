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
  });
  configureApp(app);
  const config = app.get(ConfigService);
  const port = config.getOrThrow<number>('PORT');
  const host = config.getOrThrow<string>('HOST');
  await app.listen(port, host);
  Logger.log(`gateway listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/v1`, 'Bootstrap');
}

bootstrap().catch((error: Error) => {
  Logger.error(error.message, error.stack, 'Bootstrap');
  process.exit(1);
});
