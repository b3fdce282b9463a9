// Loaded by main.ts once the environment is valid and the embedded database's folder is being
// prepared. Before anything else imports @nestjs/common: it loads with its date formatters deferred.
import './common/runtime/nest-common.preload';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { Logger as PinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { afterListen, configureApp } from './app.setup';
import { GatewayExpressAdapter } from './common/http/gateway-express.adapter';
import { StartupLogger } from './common/logging/startup.logger';
import { installLeanAsyncResourceBind } from './common/runtime/lean-async-resource-bind';
import { collectStartupGarbage } from './common/runtime/startup-garbage';
import { AppConfig, logLevelsFrom } from './config/app-config';

export async function bootstrap(config: AppConfig): Promise<void> {
  // Nest's interceptor chain binds two functions per streamed chat completion; Node 20's bind is
  // the costly kind.
  installLeanAsyncResourceBind();
  const logger = new StartupLogger({ logLevels: logLevelsFrom(config.LOG_LEVEL) });
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new GatewayExpressAdapter(),
    {
      bodyParser: false,
      logger,
      // Nest's start-up lines wait for the JSON logger instead of going out as coloured text.
      bufferLogs: true,
      // A failed start (bad config, database behind) exits with status 1 through main.ts's catch,
      // not with Nest's default abort().
      abortOnError: false,
    },
  );
  logger.writeTo(app.get(PinoLogger));
  app.useLogger(logger);
  configureApp(app);
  const { PORT: port, HOST: host } = config;
  try {
    // Init connects the database and compiles Prisma's query engine, start-up's last large
    // allocation (about 12 MB): the collection comes after it, or the memory reducer waits on it.
    await app.init();
    collectStartupGarbage();
    await app.listen(port, host);
  } catch (error) {
    // Closed first so the embedded database releases its data folder.
    await app.close().catch(() => undefined);
    throw listenError(error as NodeJS.ErrnoException, host, port);
  }
  logger.started();
  await afterListen(app);
  const { port: bound } = app.getHttpServer().address() as AddressInfo; // the real one when PORT=0
  Logger.log(
    `gateway listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${bound}/v1`,
    'Bootstrap',
  );
}

/** Says which variable to change, instead of Node's bare `listen EADDRINUSE`. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new Error(
        `PORT=${port}: ${host}:${port} is already in use by another process; set PORT to a free port`,
      );
    case 'EACCES':
      return new Error(
        `PORT=${port}: not allowed to listen on ${host}:${port} (ports below 1024 need privileges); set PORT to 1024 or more`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new Error(
        `HOST=${host}: not an address of this machine (${error.code}); set HOST to 0.0.0.0, 127.0.0.1 or one of its addresses`,
      );
    default:
      return error;
  }
}
