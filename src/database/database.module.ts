import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
} from '@nestjs/common';
import { DatabaseConnection, openDatabase } from './database-connection';
import { PrismaService } from './prisma.service';
import { AppConfig } from '../config/app-config';

/**
 * Closes the database last. Nest runs onModuleDestroy and beforeApplicationShutdown before
 * onApplicationShutdown, and global modules such as this one after all others, so requests
 * still finishing and the usage flush find the pool open. One hook, so Prisma's pool is closed
 * before the embedded server it talks to stops (hooks of one module run concurrently).
 */
@Injectable()
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(DatabaseConnection) private readonly connection: DatabaseConnection,
    private readonly prisma: PrismaService,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
    // $disconnect ends the pool only if Prisma itself ever connected; the usage insert uses the
    // pool directly and may have been its only user.
    if (!this.prisma.pool.ended) await this.prisma.pool.end();
    await this.connection.embedded?.stop();
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(
    options: { joinRunningEmbedded?: boolean; allowUnmigrated?: boolean } = {},
  ): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DatabaseConnection,
          inject: [AppConfig],
          useFactory: (config: AppConfig) =>
            openDatabase({
              databaseUrl: config.DATABASE_URL,
              dataDir: config.GATEWAY_DATA_DIR,
              migrateOnStart: config.DB_MIGRATE_ON_START === 'true',
              joinRunningEmbedded: options.joinRunningEmbedded,
              allowUnmigrated: options.allowUnmigrated,
            }),
        },
        DatabaseShutdown,
        PrismaService,
      ],
      exports: [DatabaseConnection, PrismaService],
    };
  }
}
