import { type INestApplication, VersioningType } from '@nestjs/common';
import type { Express } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { ADMIN_BODY_LIMIT } from './admin/admin.module';
import { corsOptionsFrom } from './common/http/cors';
import { installClientErrorHandlers } from './common/http/client-error.handler';
import { jsonBodyMiddleware } from './common/http/json-body.middleware';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { requestLogMiddleware } from './common/logging/request-log.middleware';
import { AppConfig } from './config/app-config';
import { parseTrustProxy } from './config/trust-proxy';
import { responseModeOf } from './formats/response-mode';
import { DemoKeyService } from './keys/demo-key.service';
import { rejectedRequestsMiddleware } from './metrics/metrics.middleware';
import { MetricsService } from './metrics/metrics.service';

/** Chat-completion bodies up to 1 MiB: long conversations exceed Express's 100 kb default. */
export const COMPLETIONS_BODY_LIMIT = '1mb';

/** Everything startGateway (bootstrap.ts) does to the app besides listening. */
export function configureApp(app: INestApplication): INestApplication {
  const config = app.get(AppConfig);
  const http = app.getHttpAdapter().getInstance() as Express;
  // request.ip is the client's address behind TRUST_PROXY's proxies (the admin side's failed
  // credential limits, audit rows); unset, the socket's peer, so no header can choose it.
  const trustProxy = parseTrustProxy(config.TRUST_PROXY);
  if (trustProxy !== false) http.set('trust proxy', trustProxy);
  app.use(requestIdMiddleware);
  // The request's log line; nestjs-pino sets its root logger while the app initialises.
  app.use(requestLogMiddleware(() => PinoLogger.root));
  // Before the routes, so a preflight is answered here and never reaches auth (it has no key).
  const cors = corsOptionsFrom(config.CORS_ORIGINS);
  if (cors) app.enableCors(cors);
  // The count of rejected completions and the body parsers of the API and the admin API, as
  // plain Express middleware registered before Nest's routes, in the order they run (Nest's
  // MiddlewareConsumer would add an async proxy per middleware and request). The counter comes
  // first, so that it also hears the parser's 413 and 415; errors reach Nest's exception filter
  // through next(). The dashboard's parser stays with its module (dashboard.module.ts).
  const metrics = app.get(MetricsService);
  http.post('/v1/chat/completions', rejectedRequestsMiddleware(metrics, 'chat_completions'));
  // Exactly /v1/messages: count_tokens is no completion, and never reaches a model's counters.
  http.post(/^\/v1\/messages\/?$/, rejectedRequestsMiddleware(metrics, 'messages'));
  http.post('/v1/responses', rejectedRequestsMiddleware(metrics, 'responses'));
  http.post('/v1/embeddings', rejectedRequestsMiddleware(metrics, 'embeddings'));
  app.use('/v1', jsonBodyMiddleware(COMPLETIONS_BODY_LIMIT));
  app.use('/admin', jsonBodyMiddleware(ADMIN_BODY_LIMIT));
  // The chat completion's two handlers, JSON and stream, chosen per request (response-mode.ts).
  // Before app.init(), which maps the routes; no other route has a version.
  app.enableVersioning({ type: VersioningType.CUSTOM, extractor: responseModeOf });
  // Not SIGHUP: it reloads GATEWAY_CONFIG (config/config-reload.signal.ts) instead of stopping.
  // process.exit(0) once stopped, not the signal raised again: an exit writes the log lines still
  // buffered (common/logging/stdout-destination.ts), a death by signal would drop them.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT', 'SIGQUIT'], { useProcessExit: true });
  installClientErrorHandlers(app.getHttpServer());
  http.disable('x-powered-by');
  http.set('etag', false);
  return app;
}

/** What waits until the server listens: a demo key printed by a start that then fails is lost. */
export async function afterListen(app: INestApplication): Promise<void> {
  await app.get(DemoKeyService).createOnFirstStart();
}
