import { type DynamicModule, Logger, type NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { Logger as PinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { afterListen, configureApp } from './app.setup';
import { GatewayExpressAdapter } from './common/http/gateway-express.adapter';
import { StartupLogger } from './common/logging/startup.logger';
import { AppConfig, logLevelsFrom } from './config/app-config';

/**
 * Builds the application from the root module. main.ts uses NestFactory; the e2e tests pass one
 * that compiles the module through Nest's testing module, with their provider overrides.
 */
export type AppFactory = (
  module: DynamicModule,
  adapter: GatewayExpressAdapter,
  options: NestApplicationOptions,
) => Promise<NestExpressApplication>;

const nestFactory: AppFactory = (module, adapter, options) =>
  NestFactory.create<NestExpressApplication>(module, adapter, options);

/**
 * Creates, configures and starts the gateway on HOST:PORT, and resolves once it listens and the
 * demo key, if one is made, is printed. main.ts and the e2e tests (test/support/test-app.ts) both
 * start it here, so the tests run what production runs.
 */
export async function startGateway(
  config: AppConfig,
  factory: AppFactory = nestFactory,
): Promise<NestExpressApplication> {
  const logger = new StartupLogger({ logLevels: logLevelsFrom(config.LOG_LEVEL) });
  const app = await factory(AppModule.forRoot(config), new GatewayExpressAdapter(), {
    bodyParser: false,
    logger,
    // Nest's start-up lines wait for the JSON logger instead of going out as coloured text.
    bufferLogs: true,
    // A failed start (bad config, database behind) exits with status 1 through main.ts's catch,
    // not with Nest's default abort().
    abortOnError: false,
  });
  logger.writeTo(app.get(PinoLogger));
  app.useLogger(logger);
  configureApp(app);
  const { PORT: port, HOST: host } = config;
  try {
    await app.listen(port, host);
  } catch (error) {
    // Closed first so the embedded database releases its data folder.
    await app.close().catch(() => undefined);
    throw listenError(error as NodeJS.ErrnoException, host, port);
  }
  logger.started();
  const { port: bound } = app.getHttpServer().address() as AddressInfo; // the real one when PORT=0
  Logger.log(
    `gateway listening on http://${host === '0.0.0.0' ? 'localhost' : host}:${bound}/v1`,
    'Bootstrap',
  );
  // Last, so that a demo key printed on a first start is the last thing a person sees.
  await afterListen(app);
  return app;
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
