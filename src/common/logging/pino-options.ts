import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Level } from 'pino';
import { newRequestId } from '../http/request-id.middleware';

/** Nest's level names (LOG_LEVEL) in pino's words. */
const PINO_LEVEL: Record<string, Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** Probes and scrapes arrive every few seconds; at info they would drown the request lines. */
const QUIET_PATHS = /^\/(health|metrics)(\/|\?|$)/;

/**
 * Secrets that may sit in any object handed to the logger. Request headers are not logged at all
 * (see the `req` serializer); these paths catch a deployment, a key or an error logged as an object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.headers.cookie',
  '*.apiKey',
  '*.api_key',
  '*.authorization',
  '*.secret',
  '*.headers.authorization',
  'apiKey',
  'secret',
];

/** What one request's log line carries besides pino-http's own fields; set by the code that knows it. */
export interface RequestLogFields {
  model?: string;
  deployment?: string | null;
  attempts?: number;
  promptTokens?: number;
  completionTokens?: number;
  errorCode?: string;
}

type ExpressLikeResponse = ServerResponse & { locals?: { log?: RequestLogFields } };
type ExpressLikeRequest = IncomingMessage & {
  id?: string;
  originalUrl?: string;
  virtualKey?: { id?: string };
};

/**
 * nestjs-pino's options: one JSON line per request on stdout, carrying the `x-request-id` the
 * response header shows (set by requestIdMiddleware, which runs first), and never a header value.
 */
export function pinoParams(env: { LOG_LEVEL: string; LOG_FORMAT?: string }): Params {
  return {
    pinoHttp: {
      level: PINO_LEVEL[env.LOG_LEVEL] ?? 'info',
      // pino-pretty is loaded (in a worker) only when a human asks for it.
      transport:
        env.LOG_FORMAT === 'pretty'
          ? { target: 'pino-pretty', options: { singleLine: true } }
          : undefined,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      genReqId: (req) => (req as ExpressLikeRequest).id ?? newRequestId(),
      customLogLevel: (req, res, error) => {
        if (error || res.statusCode >= 500) return 'error';
        if (res.statusCode >= 400) return 'warn';
        // A failed probe or scrape is still worth a line; a successful one is noise.
        return QUIET_PATHS.test(pathOf(req)) ? 'debug' : 'info';
      },
      customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
      customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
      // The key's id (never its secret) from ApiKeyGuard; model, deployment, attempts, tokens from
      // the completions controller once the outcome is known.
      customProps: (req, res) => ({
        ...((req as ExpressLikeRequest).virtualKey
          ? { keyId: (req as ExpressLikeRequest).virtualKey?.id }
          : {}),
        ...(res as ExpressLikeResponse).locals?.log,
      }),
      serializers: {
        // Method and path only: headers carry keys, query strings nothing we need.
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: req.url.split('?')[0],
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        // pino-http invents an Error for every 5xx; its stack points into pino-http, not at the
        // cause (the exception filter logs that), so only real errors keep theirs.
        err: (err: { type?: string; message: string; stack?: string }) =>
          /^failed with status code \d+$/.test(err.message)
            ? { type: err.type, message: err.message }
            : err,
      },
    },
  };
}

function pathOf(req: IncomingMessage): string {
  return ((req as ExpressLikeRequest).originalUrl ?? req.url ?? '').split('?')[0];
}
