import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { destination, stdSerializers, type DestinationStream, type Level } from 'pino';

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
 * not mounted (`forRoutes: []`): requestLogMiddleware writes the request line instead, the same
 * line at a fraction of the CPU (docs/performance.md). Serializers are not wrapped by pino-http,
 * so they receive the plain objects that middleware logs.
 */
export function pinoParams(env: { LOG_LEVEL: string; LOG_FORMAT?: string }): Params {
  const pretty = env.LOG_FORMAT === 'pretty';
  const options = {
    level: PINO_LEVEL[env.LOG_LEVEL] ?? 'info',
    // pino-pretty is loaded (in a worker) only when a human asks for it.
    transport: pretty ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    wrapSerializers: false,
    serializers: {
      // Errors logged as objects keep pino's standard shape (type, message, stack, cause).
      err: stdSerializers.err,
    },
  };
  const stream = pretty ? undefined : jsonLogDestination();
  return { forRoutes: [], pinoHttp: stream ? [options, stream] : options };
}

/** JSON lines leave in writes of at least this many bytes... */
export const LOG_WRITE_MIN_BYTES = 4096;
/** ...or this many milliseconds after the first of them, whichever comes first. */
export const LOG_FLUSH_INTERVAL_MS = 100;

/**
 * stdout as pino's own destination (sonic-boom on file descriptor 1, asynchronous), but writing
 * the lines of a busy moment together: pino's default writes each line with its own `fs.write`
 * as soon as the previous one completes, a thread-pool round trip and a callback per request
 * under load. Measured: 7 % less CPU per JSON request (docs/performance.md, "Twelfth pass"). A
 * line waits at most LOG_FLUSH_INTERVAL_MS; pino flushes what is buffered when the process exits
 * (on-exit-leak-free), so only a SIGKILL loses the last lines, at most that many milliseconds of
 * them. Undefined, and pino's default kept, where stdout's `write` has been replaced (a test that
 * captures it): pino itself then writes through `process.stdout`, by the same check
 * (node_modules/pino/lib/tools.js, `hasBeenTampered`).
 */
export function jsonLogDestination(
  stdout: { fd?: number; write: unknown } = process.stdout,
  flushIntervalMs = LOG_FLUSH_INTERVAL_MS,
): DestinationStream | undefined {
  const tampered = stdout.write !== (stdout.constructor.prototype as typeof stdout).write;
  if (tampered) return undefined;
  return destination({
    dest: stdout.fd || 1,
    sync: false,
    minLength: LOG_WRITE_MIN_BYTES,
    periodicFlush: flushIntervalMs,
  });
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
