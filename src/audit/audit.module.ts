import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AuditRetention } from './audit-retention.service';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AUDIT_DEFAULT_SCOPE, type AuditActor } from './audit.types';

/**
 * The audit log (docs/sso.md, "Audit log"). Global, like the database: every module that
 * changes keys, teams or sessions writes its rows through AuditService in its own transaction.
 */
@Global()
@Module({})
export class AuditModule {
  /**
   * `defaultActor`: who changes made without a caller are recorded as (`system` in the gateway,
   * `cli` in the command line). `retention`: run the daily AUDIT_RETENTION_DAYS job (the
   * gateway does, a CLI command does not).
   */
  static forRoot(options: { defaultActor: AuditActor; retention: boolean }): DynamicModule {
    const providers: Provider[] = [
      AuditRepository,
      AuditService,
      {
        provide: AUDIT_DEFAULT_SCOPE,
        useValue: { actor: options.defaultActor, sourceIp: null, requestId: null },
      },
    ];
    if (options.retention) providers.push(AuditRetention);
    return { module: AuditModule, providers, exports: [AuditService] };
  }
}
