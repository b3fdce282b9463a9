import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { databaseFailureOf } from '../errors/database-failure';
import { GatewayErrorCode } from '../errors/gateway-error-code';
import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';
import { LogThrottle } from '../logging/log-throttle';
import { AppConfig } from '../../config/app-config';
import { deliberateError, ErrorEnvelopes } from './error-envelope';

const HTTP_STATUS_CODES: Partial<Record<number, GatewayErrorCode>> = {
  [HttpStatus.NOT_FOUND]: 'not_found',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'request_too_large',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'unsupported_media_type',
  [HttpStatus.BAD_REQUEST]: 'invalid_parameter',
  [HttpStatus.UNAUTHORIZED]: 'invalid_api_key',
  [HttpStatus.FORBIDDEN]: 'model_not_allowed',
  [HttpStatus.TOO_MANY_REQUESTS]: 'rate_limit_exceeded',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'service_unavailable',
};

/**
 * Turns every error into a GatewayException with a stable code, answered in the envelope of the
 * wire format the request speaks (ErrorEnvelopes; OpenAI's `{error:{message,type,param,code}}`
 * by default). A database that cannot answer is a 503 with Retry-After, wherever it surfaced; a
 * value Postgres refused as data (SQLSTATE class 22) that validation let through is a 400, and a
 * warning, since the DTO should have named the field. Other unknown errors become a generic 500
 * whose detail goes only to the log.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter, OnApplicationShutdown {
  private readonly logger = new Logger('Errors');
  /**
   * 503s come in floods (every request while Postgres is down): one line per code per
   * ERROR_LOG_INTERVAL_MS, then a count. Other errors stay one line each, with their request id.
   */
  private readonly outages: LogThrottle;

  constructor(
    private readonly envelopes: ErrorEnvelopes,
    config: AppConfig,
  ) {
    this.outages = new LogThrottle(config.ERROR_LOG_INTERVAL_MS, (code, count, latest) =>
      this.logger.error(
        `${code}: ${count} more 503 answer(s) like the one above in the last interval; latest: ${latest}`,
      ),
    );
  }

  onApplicationShutdown(): void {
    this.outages.flush();
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<Request>();
    const response = context.getResponse<Response>();
    const requestId = String(response.getHeader('x-request-id') ?? '');
    if (exception instanceof ClientDisconnectedError) {
      // Nobody is left to answer; the outcome was already recorded as aborted.
      this.logger.debug(`request ${requestId}: client disconnected`);
      if (!response.writableEnded) response.end();
      return;
    }
    const error = this.toGatewayException(exception, requestId);

    if (response.headersSent) {
      // A stream already started: its own error frame was written by the SSE writer.
      this.logger.warn(
        `request ${requestId}: error after headers were sent: ${describe(exception)}`,
      );
      if (!response.writableEnded) response.end();
      return;
    }
    if (
      error.status >= 500 ||
      exception instanceof UpstreamError ||
      error.cause instanceof UpstreamError
    ) {
      const line = `request ${requestId} ${request.method} ${request.path}: ${error.code}: ${describe(exception)}`;
      if (error.status !== HttpStatus.SERVICE_UNAVAILABLE || this.outages.admit(error.code, line))
        this.logger.error(line);
    }
    const answer = this.envelopes.for(request).render(error, requestId);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    response.status(answer.status).json(answer.body);
  }

  private toGatewayException(exception: unknown, requestId: string): GatewayException {
    const deliberate = deliberateError(exception);
    if (deliberate) return deliberate;
    if (exception instanceof ThrottlerException) return new GatewayException('rate_limit_exceeded');
    const database = databaseFailureOf(exception);
    if (database?.kind === 'unavailable')
      return new GatewayException('service_unavailable', {
        message: 'The database is unavailable. Retry later.',
        headers: { 'Retry-After': '1' },
        cause: exception,
      });
    if (database?.kind === 'data') {
      this.logger.warn(
        `request ${requestId}: Postgres refused a value (SQLSTATE ${database.sqlState}) that validation let through: ${describe(exception)}`,
      );
      return new GatewayException('invalid_parameter', {
        message: `Invalid parameter: a value of this request is out of the range the database takes (SQLSTATE ${database.sqlState}).`,
      });
    }
    // Nest's 400 for a path segment that is not valid percent-encoding (e.g. %E0%A4%A).
    if (
      exception instanceof BadRequestException &&
      exception.message.startsWith('Failed to decode')
    )
      return new GatewayException('invalid_parameter', {
        param: 'path',
        message: 'Invalid parameter: a segment of the URL path is not valid percent-encoding.',
      });
    if (exception instanceof HttpException) {
      const code = HTTP_STATUS_CODES[exception.getStatus()];
      if (code)
        return new GatewayException(code, {
          message: code === 'not_found' ? exception.message : undefined,
        });
    }
    this.logger.error(
      `request ${requestId}: unexpected error`,
      (exception as Error)?.stack ?? String(exception),
    );
    return new GatewayException('internal_error', {
      message: `The gateway had an internal error. Quote request id ${requestId} when you report it.`,
    });
  }
}

function describe(exception: unknown): string {
  if (exception instanceof UpstreamError) return exception.message;
  if (exception instanceof GatewayException && exception.cause)
    return `${exception.message} (${describe(exception.cause)})`;
  return exception instanceof Error ? exception.message : String(exception);
}
