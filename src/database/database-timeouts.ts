import type { AppConfig } from '../config/app-config';

/** Every wait on Postgres is bounded, so a database behind a silent network turns into errors. */
export interface DatabaseTimeouts {
  connectMs: number;
  /** Server side: Postgres cancels the statement. */
  statementMs: number;
  /** Client side: the answer never came (dropped packets); a little longer than statementMs. */
  queryMs: number;
  /** Health pings: readiness and the key change listener. */
  pingMs: number;
}

export function databaseTimeouts(config: AppConfig): DatabaseTimeouts {
  return {
    connectMs: config.DB_CONNECT_TIMEOUT_MS,
    statementMs: config.DB_STATEMENT_TIMEOUT_MS,
    queryMs: config.DB_STATEMENT_TIMEOUT_MS + 1_000,
    pingMs: config.DB_PING_TIMEOUT_MS,
  };
}
