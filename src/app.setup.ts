import type { INestApplication } from '@nestjs/common';
import { requestIdMiddleware } from './common/http/request-id.middleware';

/** Everything main.ts does to the app besides listening, shared with the e2e tests. */
export function configureApp(app: INestApplication): INestApplication {
  app.use(requestIdMiddleware);
  app.enableShutdownHooks();
  const http = app.getHttpAdapter().getInstance();
  http.disable('x-powered-by');
  http.set('etag', false);
  return app;
}
