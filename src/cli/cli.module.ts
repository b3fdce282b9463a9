import { DynamicModule, Module } from '@nestjs/common';
import { userInfo } from 'node:os';
import { AuditModule } from '../audit/audit.module';
import type { AuditActor } from '../audit/audit.types';
import { AppConfig } from '../config/app-config';
import { AppConfigModule } from '../config/app-config.module';
import { DatabaseModule } from '../database/database.module';
import { KeysModule } from '../keys/keys.module';
import { TeamsModule } from '../teams/teams.module';
import { SpendReport } from '../usage/spend-report.service';

/** What the command line needs: the database and the same key, team and spend services the gateway uses. */
@Module({})
export class CliModule {
  /** `db migrate` must open a database that is behind; every other command refuses one. */
  static forCommand(config: AppConfig, options: { allowUnmigrated: boolean }): DynamicModule {
    return {
      module: CliModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot({
          joinRunningEmbedded: true,
          allowUnmigrated: options.allowUnmigrated,
        }),
        // Every change a command makes is recorded as the CLI's, with the operating-system user.
        AuditModule.forRoot({ defaultActor: cliActor(), retention: false }),
        KeysModule,
        TeamsModule,
      ],
      // Only the report: the usage module's recorder and partition jobs belong to the gateway.
      providers: [SpendReport],
    };
  }
}

/** `cli` and who ran it: the user name, or `uid:<n>` for an account without one (some containers). */
export function cliActor(): AuditActor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = `uid:${process.getuid?.() ?? 'unknown'}`;
  }
  return { type: 'cli', id: name, email: null };
}
