import type { ConfigService } from '@nestjs/config';

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

/** The defaults without a ConfigService (a PrismaService made by hand, in a test or a script). */
export function databaseTimeouts(config?: ConfigService): DatabaseTimeouts {
  const statementMs = config?.get<number>('DB_STATEMENT_TIMEOUT_MS') ?? 15_000;
  return {
    connectMs: config?.get<number>('DB_CONNECT_TIMEOUT_MS') ?? 3_000,
    statementMs,
    queryMs: statementMs + 1_000,
    pingMs: config?.get<number>('DB_PING_TIMEOUT_MS') ?? 2_000,
  };
}
