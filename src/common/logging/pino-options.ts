import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { stdSerializers, type Level } from 'pino';
import { stdoutDestination } from './stdout-destination';

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
 * Secrets that may sit in any object handed to the logger. Request headers are not logged (the
 * request line carries fixed fields, requestLogMiddleware); the `req.headers` paths stay as a
 * guard for an object logged elsewhere, the others catch a deployment, a key or an error.
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

/** What one request's log line carries besides method, path, status and time; set by the code that knows it. */
export interface RequestLogFields {
  /** The API the request came in by: chat_completions, messages, responses. */
  endpoint?: string;
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
 * nestjs-pino's options. Its per-request middleware (pino-http and an AsyncLocalStorage scope) is
 * not mounted (`forRoutes: []`): requestLogMiddleware writes the request line instead, with fixed
 * fields and no per-request child logger. Serializers are not wrapped by pino-http, so they
 * receive the plain objects that middleware logs.
 */
export function pinoParams(env: { LOG_LEVEL: string; LOG_FORMAT?: string }): Params {
  const pretty = env.LOG_FORMAT === 'pretty';
  const options = {
    level: PINO_LEVEL[env.LOG_LEVEL] ?? 'info',
    // pino-pretty is loaded (in a worker) only when a human asks for it.
    transport: pretty ? prettyTransport() : undefined,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    wrapSerializers: false,
    serializers: {
      // Errors logged as objects keep pino's standard shape (type, message, stack, cause).
      err: stdSerializers.err,
    },
  };
  const stream = pretty ? undefined : stdoutDestination();
  return { forRoutes: [], pinoHttp: stream ? [options, stream] : options };
}

/**
 * pino-pretty is a development dependency: an install without them (the Docker image) has no
 * pino-pretty, and pino's worker would fail with a bare "unable to determine transport target".
 */
export function prettyTransport(resolve: (id: string) => string = require.resolve) {
  try {
    resolve('pino-pretty');
  } catch {
    throw new Error(
      'LOG_FORMAT=pretty needs pino-pretty, a development dependency this install does not have: set LOG_FORMAT=json (and pipe the lines through `npx pino-pretty` where it is installed)',
    );
  }
  return { target: 'pino-pretty', options: { singleLine: true } };
}

/** The level of a request's line: a failed probe or scrape is still worth a line; a successful one is noise. */
export function requestLogLevel(path: string, statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  if (statusCode >= 400) return 'warn';
  return QUIET_PATHS.test(path) ? 'debug' : 'info';
}

/**
 * What a request's line carries besides method, path and status: the key's id (never its secret)
 * from ApiKeyGuard; model, deployment, attempts, tokens from the completions controller once the
 * outcome is known.
 */
export function requestLogProps(
  req: IncomingMessage,
  res: ServerResponse,
): RequestLogFields & { keyId?: string } {
  const keyId = (req as ExpressLikeRequest).virtualKey?.id;
  const fields = (res as ExpressLikeResponse).locals?.log;
  return keyId ? { keyId, ...fields } : { ...fields };
}
