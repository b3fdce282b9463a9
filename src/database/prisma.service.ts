import { Inject, Injectable } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { DatabaseConnection } from './database-connection';

/**
 * Prisma 7 on node-postgres: no query engine binary, works against Postgres and PGlite alike.
 * It is disconnected by DatabaseModule at onApplicationShutdown, the last lifecycle step, so
 * work that drains during shutdown (in-flight requests, the usage buffer) can still write.
 */
@Injectable()
export class PrismaService extends PrismaClient {
  constructor(@Inject(DatabaseConnection) connection: DatabaseConnection) {
    // Bounded waits: a database that hangs must turn into errors, not into requests (or a usage
    // flush, or a shutdown) that wait for ever.
    super({
      adapter: new PrismaPg({ connectionString: connection.url, max: 10, connectionTimeoutMillis: 5_000, query_timeout: 30_000 }),
    });
  }
}
