import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { AuditService } from './audit.service';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Deletes audit rows older than AUDIT_RETENTION_DAYS (365 by default; 0 keeps them all), at
 * start-up and daily, as the usage retention does. The only delete the table's trigger allows.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AuditRetention');
  private readonly days: number;
  private timer?: NodeJS.Timeout;
  /** The latest run; purgeAndLog never rejects. */
  private run?: Promise<void>;

  constructor(
    private readonly audit: AuditService,
    config: AppConfig,
  ) {
    this.days = config.AUDIT_RETENTION_DAYS;
  }

  onApplicationBootstrap(): void {
    if (this.days === 0) return;
    this.run = this.purgeAndLog();
    this.timer = setInterval(() => (this.run = this.purgeAndLog()), DAY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.run;
  }

  /** Rows created before this many days ago go; null when retention is off. */
  cutoff(now = new Date()): Date | null {
    return this.days > 0 ? new Date(now.getTime() - this.days * DAY_MS) : null;
  }

  async purge(now = new Date()): Promise<number> {
    const cutoff = this.cutoff(now);
    return cutoff ? this.audit.deleteBefore(cutoff) : 0;
  }

  private async purgeAndLog(): Promise<void> {
    try {
      const deleted = await this.purge();
      if (deleted > 0)
        this.logger.log(`deleted ${deleted} audit row(s) older than ${this.days} days`);
    } catch (error) {
      this.logger.error(`audit retention failed: ${(error as Error).message}`);
    }
  }
}
