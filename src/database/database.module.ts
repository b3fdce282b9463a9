import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DatabaseConnection, openDatabase } from './database-connection';
import { PrismaService } from './prisma.service';

/** Stops the embedded server last, after Prisma has closed its pool (onModuleDestroy). */
class EmbeddedDatabaseShutdown implements OnApplicationShutdown {
  constructor(@Inject(DatabaseConnection) private readonly connection: DatabaseConnection) {}

  async onApplicationShutdown(): Promise<void> {
    await this.connection.embedded?.stop();
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: { joinRunningEmbedded?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DatabaseConnection,
          inject: [ConfigService],
          useFactory: (config: ConfigService) =>
            openDatabase({
              databaseUrl: config.get<string>('DATABASE_URL'),
              dataDir: config.getOrThrow<string>('GATEWAY_DATA_DIR'),
              migrateOnStart: config.get('DB_MIGRATE_ON_START') === 'true',
              joinRunningEmbedded: options.joinRunningEmbedded,
            }),
        },
        EmbeddedDatabaseShutdown,
        PrismaService,
      ],
      exports: [DatabaseConnection, PrismaService],
    };
  }
}
