import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { DatabaseConnection } from './database-connection';

/** Prisma 7 on node-postgres: no query engine binary, works against Postgres and PGlite alike. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(DatabaseConnection) connection: DatabaseConnection) {
    super({ adapter: new PrismaPg({ connectionString: connection.url, max: 10 }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
