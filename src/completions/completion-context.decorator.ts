import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { clientConnection } from '../common/http/client-connection';
import { responseHeaderSetter } from '../common/http/response-headers';
import type { RequestLogFields } from '../common/logging/pino-options';
import { OUTCOME_RECORDED } from '../metrics/metrics.middleware';
import type { CompletionOutcome } from '../usage/completion-outcome';
import type { CompletionContext } from './completions.service';

/**
 * What CompletionsService needs of the HTTP exchange, as one handler parameter: the key the
 * guards authenticated, the request id, the client's connection (is it still there), a way to add
 * response headers, and where the outcome goes for the request's log line and the metrics.
 *
 * One parameter rather than one decorator each: Nest resolves every custom parameter through the
 * global pipes, one promise and pipe chain per parameter on every request (docs/performance.md,
 * "Sixth pass").
 */
export const CompletionRequest = createParamDecorator(
  (_data: unknown, context: ExecutionContext): CompletionContext => {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    return {
      key: request.virtualKey!,
      requestId: request.id ?? '',
      client: clientConnection(response),
      setHeaders: responseHeaderSetter(response),
      report: (outcome) => reportOutcome(response, outcome),
    };
  },
);

/** Read by the request's log line (requestLogMiddleware) and by the metrics middleware. */
function reportOutcome(response: Response, outcome: CompletionOutcome): void {
  response.locals[OUTCOME_RECORDED] = true;
  const log: RequestLogFields = {
    model: outcome.publicModel,
    deployment: outcome.deployment,
    attempts: outcome.attempts,
    promptTokens: outcome.usage.promptTokens,
    completionTokens: outcome.usage.completionTokens,
  };
  if (outcome.errorCode) log.errorCode = outcome.errorCode;
  response.locals.log = log;
}
