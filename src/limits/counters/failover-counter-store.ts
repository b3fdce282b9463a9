import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type {
  ConsumeResult,
  CounterBackend,
  CounterSpec,
  CounterStore,
  CounterWindow,
} from './counter-store';

/** At most one "still down" error line per interval, however many requests fall back. */
const OUTAGE_LOG_INTERVAL_MS = 30_000;
/** After a failed or timed-out command, Redis is left alone this long before it is tried again. */
const RETRY_AFTER_FAILURE_MS = 1_000;

interface Outage {
  since: number;
  lastLog: number;
  /** Limit checks counted in this instance's memory during the outage. */
  localChecks: number;
}

/**
 * Redis-backed counters that keep the gateway serving when Redis is not: while Redis is down,
 * slow or still connecting, every check is counted in this instance's memory instead. Limits then
 * hold per instance (N replicas allow up to N times the rate) rather than not at all, and the
 * rate-limit headers stay truthful for the instance that answers. Shared counting resumes with
 * the first command that succeeds again, and that recovery is logged.
 */
export class FailoverCounterStore implements CounterStore, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private outage: Outage | null = null;
  private retryAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly shared: CounterStore,
    private readonly local: CounterStore,
    private readonly now: () => number = Date.now,
  ) {
    // Without a listener ioredis reports every failed reconnect as an unhandled 'error' event.
    redis.on('error', (error: Error) => this.degrade(error.message));
  }

  /** True while checks go to Redis; false while they are counted in memory. */
  get usingRedis(): boolean {
    return this.redis.status === 'ready' && this.now() >= this.retryAt;
  }

  async consume(specs: CounterSpec[], amount: number, upTo = amount): Promise<ConsumeResult> {
    if (this.usingRedis) {
      const sent = this.now();
      try {
        const result = await this.shared.consume(specs, amount, upTo);
        this.recover(sent);
        return result;
      } catch (error) {
        this.retryAt = this.now() + RETRY_AFTER_FAILURE_MS;
        this.degrade((error as Error).message);
      }
    } else {
      this.degrade(`connection ${this.redis.status}`);
    }
    this.outage!.localChecks++;
    return this.local.consume(specs, amount, upTo);
  }

  async adjust(windows: CounterWindow[], delta: number, backend: CounterBackend): Promise<void> {
    if (backend === 'memory') return this.local.adjust(windows, delta, backend);
    // A settlement that cannot reach Redis is dropped: the reservation stays counted in full,
    // which errs on the side of the limit.
    if (!this.usingRedis) return;
    try {
      await this.shared.adjust(windows, delta, backend);
    } catch (error) {
      this.retryAt = this.now() + RETRY_AFTER_FAILURE_MS;
      this.degrade((error as Error).message);
    }
  }

  onApplicationShutdown(): void {
    // disconnect(), not quit(): quit would wait for a Redis that may be gone.
    this.redis.disconnect();
  }

  private degrade(reason: string): void {
    const now = this.now();
    if (!this.outage) {
      this.outage = { since: now, lastLog: now, localChecks: 0 };
      this.logger.error(
        `Redis limit storage unavailable (${reason}): limits are now counted per instance, in memory`,
      );
      return;
    }
    if (now - this.outage.lastLog < OUTAGE_LOG_INTERVAL_MS) return;
    this.outage.lastLog = now;
    this.logger.error(
      `Redis limit storage still unavailable after ${seconds(now - this.outage.since)} (${reason}); ` +
        `${this.outage.localChecks} limit checks counted per instance so far`,
    );
  }

  /**
   * A command sent before the outage began that still succeeds (a slow straggler) says nothing
   * about Redis now; only one sent since then ends the outage, so a flapping start is one line.
   */
  private recover(sent: number): void {
    if (!this.outage || sent < this.outage.since) return;
    this.logger.log(
      `Redis limit storage is back after ${seconds(this.now() - this.outage.since)}; ` +
        `${this.outage.localChecks} limit checks were counted per instance meanwhile. Limits are shared again.`,
    );
    this.outage = null;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
