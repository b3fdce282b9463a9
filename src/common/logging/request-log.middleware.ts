import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { requestLogLevel, requestLogProps } from './pino-options';

/**
 * One JSON line per request when its response finishes or its connection closes, in the shape
 * pino-http wrote it (docs/observability.md, "Logs and metrics"): `req` {id, method, path}, the
 * key id and the outcome fields, `res` {statusCode} (null when the client left before any
 * header), `err` for a 5xx, `responseTime` in ms, and "METHOD /path STATUS" as the message.
 *
 * Not pino-http through nestjs-pino: that builds two child loggers per request and runs every
 * request in an AsyncLocalStorage scope, which turns on Node's promise hooks for every promise
 * the process creates. Here it is one log call, and none when the line's level is off.
 */
export function requestLogMiddleware(logger: () => Logger | undefined) {
  // The line's fields are fixed above: no header, no deployment object, nothing REDACTED_PATHS
  // can match, so it skips redaction, whose wildcard paths (`*.apiKey`, ...) make pino clone and
  // walk every object value of a line. Every other line keeps it. A field added here must hold
  // no secret.
  let root: Logger | undefined;
  let lineLogger: Logger | undefined;
  const lineLoggerOf = (log: Logger): Logger => {
    if (log !== root || !lineLogger) {
      root = log;
      lineLogger = log.child({}, { redact: [] });
    }
    return lineLogger;
  };
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = Date.now();
    const path = (request.originalUrl ?? request.url).split('?', 1)[0];
    const finished = () => {
      response.removeListener('close', finished);
      response.removeListener('finish', finished);
      const rootLog = logger();
      if (!rootLog) return;
      const log = lineLoggerOf(rootLog);
      const status = response.statusCode;
      const level = requestLogLevel(path, status);
      if (!log.isLevelEnabled(level)) return;
      const line: Record<string, unknown> = {
        req: { id: request.id, method: request.method, path },
      };
      Object.assign(line, requestLogProps(request, response));
      line.res = { statusCode: response.headersSent ? status : null };
      // pino-http's Error for a 5xx without one: its stack pointed into pino-http, so only the
      // type and message were ever kept.
      if (status >= 500) line.err = { type: 'Error', message: `failed with status code ${status}` };
      line.responseTime = Date.now() - started;
      log[level](line, `${request.method} ${path} ${status}`);
    };
    response.on('close', finished);
    response.on('finish', finished);
    next();
  };
}
