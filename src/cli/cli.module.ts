import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { validateEnvironment } from '../config/env.validation';
import { DatabaseModule } from '../database/database.module';
import { KeysModule } from '../keys/keys.module';
import { TeamsModule } from '../teams/teams.module';
import { SpendReport } from '../usage/spend-report.service';

/** What the command line needs: the database and the same key, team and spend services the gateway uses. */
@Module({})
export class CliModule {
  /** `db migrate` must open a database that is behind; every other command refuses one. */
  static forCommand(options: { allowUnmigrated: boolean }): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, cache: true, validate: validateEnvironment }),
        DatabaseModule.forRoot({
          joinRunningEmbedded: true,
          allowUnmigrated: options.allowUnmigrated,
        }),
        KeysModule,
        TeamsModule,
      ],
      // Only the report: the usage module's recorder and partition jobs belong to the gateway.
      providers: [SpendReport],
    };
  }
}
