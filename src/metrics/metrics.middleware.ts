import type { RequestHandler } from 'express';
import type { MetricsService } from './metrics.service';

/** Set on response.locals by the completions service once a request has an outcome of its own. */
export const OUTCOME_RECORDED = 'metricsOutcomeRecorded';

/**
 * Counts the chat-completion requests answered before they reached a model (400, 401, 404, 413,
 * 429): the completions service counts the others, with their model and deployment. Only
 * `finish` is watched: a client that hangs up mid-stream is counted by the service as 499.
 *
 * A plain Express middleware, mounted by configureApp (app.setup.ts) on POST
 * /v1/chat/completions, before Nest's routes (configureApp says why).
 */
export function rejectedRequestsMiddleware(metrics: MetricsService): RequestHandler {
  return (_request, response, next) => {
    response.on('finish', () => {
      if (!response.locals[OUTCOME_RECORDED]) metrics.rejected(response.statusCode);
    });
    next();
  };
}
