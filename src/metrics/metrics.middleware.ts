import type { RequestHandler } from 'express';
import type { Endpoint } from '../usage/completion-outcome';
import type { MetricsService } from './metrics.service';

/** Set on response.locals by the completions service once a request has an outcome of its own. */
export const OUTCOME_RECORDED = 'metricsOutcomeRecorded';

/**
 * Counts the completion requests of one endpoint answered before they reached a model (400, 401,
 * 404, 413, 429): the pipeline counts the others, with their model and deployment. Only
 * `finish` is watched: a client that hangs up mid-stream is counted by the pipeline as 499.
 *
 * A plain Express middleware, mounted by configureApp (app.setup.ts) on each completion route
 * (POST /v1/chat/completions, /v1/messages), before Nest's routes (configureApp says why).
 */
export function rejectedRequestsMiddleware(
  metrics: MetricsService,
  endpoint: Endpoint,
): RequestHandler {
  return (_request, response, next) => {
    response.on('finish', () => {
      if (!response.locals[OUTCOME_RECORDED]) metrics.rejected(response.statusCode, endpoint);
    });
    next();
  };
}
