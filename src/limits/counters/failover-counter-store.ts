import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { GatewayException } from '../../common/errors/gateway.exception';
import type { Redis } from 'ioredis';
import type {
  ConsumeResult,
  CounterBackend,
  CounterSpec,
  CounterStore,
  CounterWindow,
} from './counter-store';

/** After a failed or timed-out command, Redis is left alone this long before it is tried again. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/** What a key's limits do while the shared store is down (LIMITS_ON_STORE_FAILURE). */
export type StoreFailurePolicy = 'local' | 'closed';

export interface FailoverOptions {
  policy?: StoreFailurePolicy;
  /** One "still unavailable" line per this interval while Redis is down (ERROR_LOG_INTERVAL_MS). */
  logIntervalMs?: number;
}

interface Outage {
  since: number;
  /** Limit checks counted in this instance's memory during the outage. */
  localChecks: number;
  /** Limit checks refused (503) during the outage, with the `closed` policy. */
  refusedChecks: number;
  reason: string;
  ticker: NodeJS.Timeout;
}

/**
 * Redis-backed counters that keep the gateway serving when Redis is not. While Redis is down,
 * slow or still connecting, a check is counted in this instance's memory instead (policy
 * `local`): limits then hold per instance (N replicas allow up to N times the rate) rather than
 * not at all, and the rate-limit headers stay truthful for the instance that answers. With the
 * policy `closed`, a virtual key's or team's limit is refused with 503 `limits_unavailable`
 * instead, so no key can spend more than its budget while the count is out of reach; the
 * gateway's own limits (keyLimit unset) still fall back to memory. Shared counting resumes with
 * the first command that succeeds again, and that recovery is logged; while down, one line per
 * interval says so, and `up` (the /metrics gauge) is false.
 */
export class FailoverCounterStore implements CounterStore, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly policy: StoreFailurePolicy;
  private readonly logIntervalMs: number;
  private outage: Outage | null = null;
  private retryAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly shared: CounterStore,
    private readonly local: CounterStore,
    private readonly now: () => number = Date.now,
    options: FailoverOptions = {},
  ) {
    this.policy = options.policy ?? 'local';
    this.logIntervalMs = Math.max(options.logIntervalMs ?? 30_000, 100);
    // Without a listener ioredis reports every failed reconnect as an unhandled 'error' event.
    redis.on('error', (error: Error) => this.degrade(error.message));
  }

  /** True while checks go to Redis; false while they are counted in memory (or refused). */
  get usingRedis(): boolean {
    return this.redis.status === 'ready' && this.now() >= this.retryAt;
  }

  get up(): boolean {
    return this.outage === null && this.usingRedis;
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
    if (this.policy === 'closed' && specs.some((spec) => spec.keyLimit)) {
      this.outage!.refusedChecks++;
      throw this.unavailable();
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
    if (this.outage) clearInterval(this.outage.ticker);
    // disconnect(), not quit(): quit would wait for a Redis that may be gone.
    this.redis.disconnect();
  }

  /** Retry-After: when Redis is tried again (at least once a second while it is down). */
  private unavailable(): GatewayException {
    const seconds = Math.max(1, Math.ceil((this.retryAt - this.now()) / 1000));
    return new GatewayException('limits_unavailable', {
      message:
        "This API key's rate limits and budgets cannot be checked: the gateway's counter store " +
        `(Redis) is unavailable, and LIMITS_ON_STORE_FAILURE=closed. Retry in ${seconds} s.`,
      headers: { 'retry-after': String(seconds) },
    });
  }

  private degrade(reason: string): void {
    if (this.outage) {
      this.outage.reason = reason;
      return;
    }
    const now = this.now();
    this.outage = {
      since: now,
      localChecks: 0,
      refusedChecks: 0,
      reason,
      ticker: setInterval(() => this.tick(), this.logIntervalMs).unref(),
    };
    this.logger.error(
      `Redis limit storage unavailable (${reason}): ${
        this.policy === 'closed'
          ? 'requests of keys with limits or budgets are refused (503) until it is back'
          : 'limits are now counted per instance, in memory'
      }`,
    );
  }

  /**
   * Once per interval while down: Redis reconnected meanwhile is asked for a PING, so the outage
   * ends even when no request comes; otherwise one line says it is still down.
   */
  private tick(): void {
    const outage = this.outage;
    if (!outage) return;
    if (this.redis.status === 'ready') {
      const sent = this.now();
      this.redis.ping().then(
        () => this.recover(sent),
        (error: Error) => this.stillDown(outage, error.message),
      );
      return;
    }
    this.stillDown(outage, outage.reason);
  }

  private stillDown(outage: Outage, reason: string): void {
    if (this.outage !== outage) return;
    this.logger.error(
      `Redis limit storage still unavailable after ${seconds(this.now() - outage.since)} (${reason}); ` +
        (this.policy === 'closed'
          ? `${outage.refusedChecks} limit checks refused, ${outage.localChecks} counted per instance so far`
          : `${outage.localChecks} limit checks counted per instance so far`),
    );
  }

  /**
   * A command sent before the outage began that still succeeds (a slow straggler) says nothing
   * about Redis now; only one sent since then ends the outage, so a flapping start is one line.
   */
  private recover(sent: number): void {
    const outage = this.outage;
    if (!outage || sent < outage.since) return;
    clearInterval(outage.ticker);
    this.outage = null;
    this.retryAt = 0;
    const checks =
      this.policy === 'closed'
        ? `${outage.refusedChecks} limit checks were refused and ${outage.localChecks} counted per instance`
        : `${outage.localChecks} limit checks were counted per instance`;
    this.logger.log(
      `Redis limit storage is back after ${seconds(this.now() - outage.since)}; ` +
        `${checks} meanwhile. Limits are shared again.`,
    );
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
