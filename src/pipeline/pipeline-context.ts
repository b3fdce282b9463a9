import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { clientConnection, type ClientConnection } from '../common/http/client-connection';
import { responseHeaderSetter, type SetResponseHeaders } from '../common/http/response-headers';
import type { RequestLogFields } from '../common/logging/pino-options';
import { END_USER_HEADER, endUserFromHeader } from '../common/validation/end-user';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { OUTCOME_RECORDED } from '../metrics/metrics.middleware';
import type { CompletionOutcome } from '../usage/completion-outcome';

/** What the pipeline needs of the HTTP exchange, whatever the wire format. */
export interface PipelineContext {
  key: VirtualKeyView;
  requestId: string;
  /** The client's connection: whether it left before the response was complete. */
  client: ClientConnection;
  setHeaders: SetResponseHeaders;
  /** The x-gateway-end-user header's end user, checked; it wins over the body's (docs/spend.md). */
  endUser?: string;
  /** Hears the outcome once it is known: the request's log line and the metrics read it. */
  report?: (outcome: CompletionOutcome) => void;
  /** The HTTP exchange (its response), so that the request drain counts the request once. */
  exchange?: object;
}

/**
 * The PipelineContext of the current request as one handler parameter: the key the guards
 * authenticated, the request id, the client's connection, a way to add response headers, the
 * end-user header (a 400 naming it when it is not a valid id), and where the outcome goes. One parameter rather than one decorator each, because Nest runs every
 * custom parameter through the global pipes.
 */
export const RequestContext = createParamDecorator(
  (_data: unknown, context: ExecutionContext): PipelineContext => {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    return {
      key: request.virtualKey!,
      requestId: request.id ?? '',
      client: clientConnection(response),
      setHeaders: responseHeaderSetter(response),
      endUser: endUserFromHeader(request.headers[END_USER_HEADER]),
      report: (outcome) => reportOutcome(response, outcome),
      exchange: response,
    };
  },
);

/** Read by the request's log line (requestLogMiddleware) and by the metrics middleware. */
function reportOutcome(response: Response, outcome: CompletionOutcome): void {
  response.locals[OUTCOME_RECORDED] = true;
  const log: RequestLogFields = {
    endpoint: outcome.endpoint,
    model: outcome.publicModel,
    deployment: outcome.deployment,
    attempts: outcome.attempts,
    promptTokens: outcome.usage.promptTokens,
    completionTokens: outcome.usage.completionTokens,
  };
  if (outcome.errorCode) log.errorCode = outcome.errorCode;
  response.locals.log = log;
}
