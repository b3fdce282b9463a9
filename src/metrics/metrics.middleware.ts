import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/** Set on response.locals by the completions service once a request has an outcome of its own. */
export const OUTCOME_RECORDED = 'metricsOutcomeRecorded';

/**
 * Counts the /v1 requests answered before they reached a model (400, 401, 404, 413, 429): the
 * completions service counts the others, with their model and deployment. Only `finish` is
 * watched: a client that hangs up mid-stream is counted by the service as 499.
 */
@Injectable()
export class RejectedRequestsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(_request: Request, response: Response, next: NextFunction): void {
    response.on('finish', () => {
      if (!response.locals[OUTCOME_RECORDED]) this.metrics.rejected(response.statusCode);
    });
    next();
  }
}
