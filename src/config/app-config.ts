import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { BUDGET_PERIODS, BudgetPeriod } from '../common/time/budget-period';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

import { emptyToUndefined, IntSetting, toInt } from './env-transforms';
import { AdminAccessSettings } from './admin-access-settings';

/**
 * The gateway's settings: one field per environment variable, its default written here and
 * nowhere else. Built once per process by loadAppConfig (main.ts, the CLI, the e2e tests) and
 * injected by class; code never reads process.env for a setting.
 */
export class AppConfig extends AdminAccessSettings {
  @IntSetting(0, 65535)
  PORT = 8080;

  /** This machine only, unless told otherwise (the Docker image sets 0.0.0.0). */
  @IsString()
  @IsNotEmpty()
  HOST = '127.0.0.1';

  /** Postgres connection string; without it the gateway runs an embedded Postgres (PGlite). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @Matches(/^postgres(?:ql)?:\/\/\S+$/, {
    message: 'DATABASE_URL must be a postgresql://user:password@host:port/database URL',
  })
  DATABASE_URL?: string;

  /** Where the embedded Postgres keeps its data. */
  @IsString()
  @IsNotEmpty()
  GATEWAY_DATA_DIR = '.gateway-data';

  /** Path of the YAML model/deployment config; without it every public model is served by the mock. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  GATEWAY_CONFIG?: string;

  /**
   * Browser origins allowed to call the gateway (comma list, e.g. `https://app.example.com`);
   * empty: no CORS headers at all, so browsers on other origins are refused by their own policy.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @Matches(/^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/, {
    message:
      'CORS_ORIGINS must be a comma list of origins such as https://app.example.com (scheme and host, no path)',
  })
  CORS_ORIGINS?: string;

  /** Apply pending migrations at start (always done for the embedded database). */
  @IsIn(['true', 'false'])
  DB_MIGRATE_ON_START: 'true' | 'false' = 'false';

  /** How long a verified key stays cached in memory. Revocation is honoured within this time. */
  @IntSetting(0, 300_000)
  KEY_CACHE_TTL_MS = 10_000;

  /** A cached key whose reload fails (Postgres down) stays accepted this long past KEY_CACHE_TTL_MS; 0: never. */
  @IntSetting(0, 86_400_000)
  KEY_CACHE_STALE_MS = 300_000;

  /** Interval of `: keep-alive` comments while a stream's upstream is silent; 0 turns them off. */
  @IntSetting(0, 600_000)
  SSE_HEARTBEAT_MS = 15_000;

  /** A streaming client whose connection carries no traffic for this long is disconnected; 0 never. */
  @IntSetting(0, 3_600_000)
  SSE_STALL_TIMEOUT_MS = 120_000;

  /** Largest JSON answer read from a provider; a bigger one is cut off and answered with a 502. */
  @IntSetting(1024, 1024 * 1024 * 1024)
  UPSTREAM_MAX_BODY_BYTES = 32 * 1024 * 1024;

  /**
   * Default of a model's `request_timeout_ms`: how long all attempts of one request and the
   * waits between them may take together, from its arrival, before it is answered 504.
   */
  @IntSetting(100, 3_600_000)
  REQUEST_TIMEOUT_MS = 600_000;

  /** Longest a stream may run, counted from the moment the gateway accepted the request. */
  @IntSetting(1_000, 86_400_000)
  STREAM_MAX_DURATION_MS = 1_800_000;

  /** Most deployments one request tries (each at most once) before its error is answered. */
  @IntSetting(1, 20)
  ROUTER_MAX_ATTEMPTS = 3;

  /** First backoff between two attempts (doubled each time, up to ROUTER_BACKOFF_MAX_MS, jittered). */
  @IntSetting(0, 60_000)
  ROUTER_BACKOFF_BASE_MS = 25;

  @IntSetting(0, 60_000)
  ROUTER_BACKOFF_MAX_MS = 1_000;

  /** A provider's Retry-After up to this long is waited out before the next attempt. */
  @IntSetting(0, 600_000)
  ROUTER_RETRY_AFTER_MAX_MS = 2_000;

  /** Consecutive failures after which a deployment is skipped for DEPLOYMENT_COOLDOWN_MS. */
  @IntSetting(1, 1_000_000_000)
  DEPLOYMENT_FAILURE_THRESHOLD = 3;

  @IntSetting(100, 3_600_000)
  DEPLOYMENT_COOLDOWN_MS = 30_000;

  /** Months of usage records kept (whole months before the current one); 0 keeps them all. */
  @IntSetting(0, 1_200)
  USAGE_RETENTION_MONTHS = 0;

  /**
   * Days of raw usage records kept (docs/spend.md, "Retention"); 0 keeps them all. Daily spend
   * rollups are kept whatever this says. With USAGE_RETENTION_MONTHS too, the shorter one wins.
   */
  @IntSetting(0, 36_500)
  USAGE_RETENTION_DAYS = 0;

  /** `off` turns the /v1/responses store off: nothing stored, nothing to continue or read. */
  @IsIn(['on', 'off'])
  RESPONSES_STORE: 'on' | 'off' = 'on';

  /** Days a stored response is kept (docs/responses.md); 0 keeps them all. */
  @IntSetting(0, 36_500)
  RESPONSES_RETENTION_DAYS = 30;

  /** How often buffered usage records are written to Postgres. */
  @IntSetting(10, 60_000)
  USAGE_FLUSH_INTERVAL_MS = 1_000;

  /** On shutdown, how long running requests (streams) may take to finish before usage is flushed. */
  @IntSetting(0, 3_600_000)
  SHUTDOWN_DRAIN_TIMEOUT_MS = 30_000;

  /** Shared storage for rate limits and budgets; without it they are counted in memory, per instance. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  REDIS_URL?: string;

  /** Prefix of every Redis key the gateway writes, so several deployments can share one Redis. */
  @IsString()
  REDIS_KEY_PREFIX = 'gateway:';

  /**
   * What a key's limits do while the Redis counter store is down: `local` counts them in each
   * instance's memory; `closed` refuses the requests of keys with limits or budgets with 503
   * `limits_unavailable` until it is back (docs/keys-and-limits.md, "When Redis fails").
   */
  @IsIn(['local', 'closed'])
  LIMITS_ON_STORE_FAILURE: 'local' | 'closed' = 'local';

  /** Longest wait for one Redis command or connection attempt before limits fall back to memory. */
  @IntSetting(10, 10_000)
  REDIS_TIMEOUT_MS = 500;

  /** Longest wait for a new Postgres connection (pool and key change listener). */
  @IntSetting(100, 60_000)
  DB_CONNECT_TIMEOUT_MS = 3_000;

  /** Postgres cancels a statement running longer; the client gives up 1 s later (a silent network). */
  @IntSetting(100, 600_000)
  DB_STATEMENT_TIMEOUT_MS = 15_000;

  /** Longest wait for a quick query (readiness ping, key lookup, listener ping) before Postgres counts as down. */
  @IntSetting(50, 30_000)
  DB_PING_TIMEOUT_MS = 2_000;

  /** How often the key change listener checks that its connection still answers. */
  @IntSetting(100, 600_000)
  KEY_LISTENER_PING_INTERVAL_MS = 5_000;

  /** Per error kind (e.g. 503 service_unavailable), at most one log line per interval, with a count. */
  @IntSetting(0, 3_600_000)
  ERROR_LOG_INTERVAL_MS = 10_000;

  /** Requests per minute for a key whose rpm_limit is not set; 0 means no limit. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  KEY_RPM_LIMIT = 100;

  /** Tokens per budget period for a key without a budget of its own; unset or 0 means no budget. */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  KEY_TOKEN_BUDGET?: number;

  /** The calendar period (UTC) a token budget covers. */
  @IsIn(BUDGET_PERIODS)
  KEY_BUDGET_PERIOD: BudgetPeriod = 'month';

  /** Completion tokens reserved for a request without max_tokens, until its real usage is known. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  DEFAULT_MAX_TOKENS_RESERVATION = 1024;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'log';

  /** `json`: one JSON object per line on stdout (for log shippers); `pretty`: for a person (pino-pretty). */
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(16)
  METRICS_TOKEN?: string;

  /** OTLP/HTTP collector base URL (e.g. http://collector:4318); unset, tracing is off and not loaded. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The `service.name` of the gateway's spans. */
  @IsString()
  @IsNotEmpty()
  OTEL_SERVICE_NAME = 'llm-gateway';
}

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Validates an environment (process.env, or a test's) into the settings, or throws one line naming each bad variable. */
export function loadAppConfig(raw: Record<string, unknown>): AppConfig {
  const env = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  // One message per variable, all on one line: a start-up failure is one line in the log. Decorators
  // register bottom-up, so the last failed constraint is the leftmost, most basic one (IsInt before Min).
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const problems = errors.map(
      (e) => Object.values(e.constraints ?? {}).at(-1) ?? `${e.property} is invalid`,
    );
    throw new Error(`Invalid environment: ${problems.join('; ')}`);
  }
  return env;
}

export function logLevelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}
