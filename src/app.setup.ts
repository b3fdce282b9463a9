import type { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { PinoLogger } from 'nestjs-pino';
import { corsOptionsFrom } from './common/http/cors';
import { installClientErrorHandlers } from './common/http/client-error.handler';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { requestLogMiddleware } from './common/logging/request-log.middleware';
import { DemoKeyService } from './keys/demo-key.service';

/** Everything bootstrap.ts does to the app besides listening, shared with the e2e tests. */
export function configureApp(app: INestApplication): INestApplication {
  app.use(requestIdMiddleware);
  // The request's log line; nestjs-pino sets its root logger while the app initialises.
  app.use(requestLogMiddleware(() => PinoLogger.root));
  // Before the routes, so a preflight is answered here and never reaches auth (it has no key).
  const cors = corsOptionsFrom(app.get(ConfigService).get<string>('CORS_ORIGINS'));
  if (cors) app.enableCors(cors);
  // Not SIGHUP: it reloads GATEWAY_CONFIG (config/config-reload.signal.ts) instead of stopping.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT', 'SIGQUIT']);
  installClientErrorHandlers(app.getHttpServer());
  const http = app.getHttpAdapter().getInstance();
  http.disable('x-powered-by');
  http.set('etag', false);
  return app;
}

/** What waits until the server listens: a demo key printed by a start that then fails is lost. */
export async function afterListen(app: INestApplication): Promise<void> {
  await app.get(DemoKeyService).createOnFirstStart();
}
