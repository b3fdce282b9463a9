import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ResponseStoreRepository } from './response-store.repository';
import { ResponseStore } from './response-store.service';

const HOUR_MS = 3600 * 1000;
/** Rows per DELETE: a short statement each, so a large backlog never holds a long lock. */
const BATCH = 5_000;

/**
 * Deletes stored responses older than RESPONSES_RETENTION_DAYS at start-up and hourly. Reads
 * already ignore expired rows (ResponseStore.since), so this only gives their space back; several
 * instances may run it at once, each DELETE taking rows the others have not.
 */
@Injectable()
export class ResponseRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ResponseRetention');
  private timer?: NodeJS.Timeout;
  /** The latest run; runAndLog never rejects. */
  private run?: Promise<void>;

  constructor(
    private readonly store: ResponseStore,
    private readonly repository: ResponseStoreRepository,
  ) {}

  onApplicationBootstrap(): void {
    if (this.store.retentionDays === 0) return;
    this.run = this.runAndLog();
    this.timer = setInterval(() => (this.run = this.runAndLog()), HOUR_MS).unref();
  }

  /** Lets a run in progress finish before the database closes. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.run;
  }

  /** Deletes every expired response; the number deleted. */
  async deleteExpired(now = Date.now()): Promise<number> {
    const cutoff = this.store.since(now);
    let total = 0;
    for (;;) {
      const deleted = await this.repository.deleteBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  private async runAndLog(): Promise<void> {
    try {
      const deleted = await this.deleteExpired();
      if (deleted > 0) this.logger.log(`deleted ${deleted} stored response(s) past retention`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      this.logger.error(
        `stored response retention failed: ${typeof code === 'string' ? code : 'unknown error'}`,
      );
    }
  }
}
