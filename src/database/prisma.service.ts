import { Inject, Injectable } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { DatabaseConnection } from './database-connection';
import { databaseTimeouts } from './database-timeouts';
import { AppConfig } from '../config/app-config';

/**
 * Prisma 7 on node-postgres: no query engine binary, works against Postgres and PGlite alike.
 * It is disconnected by DatabaseModule at onApplicationShutdown, the last lifecycle step, so
 * work that drains during shutdown (in-flight requests, the usage buffer) can still write.
 */
@Injectable()
export class PrismaService extends PrismaClient {
  /**
   * Prisma's own connection pool, for the one statement that goes around Prisma: the usage rows'
   * batched insert (usage.repository.ts). Ended by $disconnect, or by DatabaseShutdown when
   * Prisma itself never connected.
   */
  readonly pool: Pool;

  constructor(@Inject(DatabaseConnection) connection: DatabaseConnection, config: AppConfig) {
    // Bounded waits: a database that hangs must turn into errors, not into requests (or a usage
    // flush, or a shutdown) that wait for ever. statement_timeout lets Postgres cancel a slow
    // statement; query_timeout covers the network dropping the answer (no RST ever comes), and
    // a connection whose query timed out is thrown away, not reused. The embedded server
    // (PGlite) takes no startup parameters, so only the client-side bounds apply there.
    const timeouts = databaseTimeouts(config);
    const pool = new Pool({
      connectionString: connection.url,
      // The embedded server runs every connection on PGlite's one session and interleaves their
      // extended-protocol messages (electric-sql/pglite#1046: "bind message supplies 1
      // parameters, but prepared statement requires 4"). One connection is all it can serve.
      max: connection.embedded ? 1 : 10,
      connectionTimeoutMillis: timeouts.connectMs,
      query_timeout: timeouts.queryMs,
      ...(connection.embedded ? {} : { statement_timeout: timeouts.statementMs }),
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }
}
