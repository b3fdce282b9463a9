import { Injectable, Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { UpstreamError } from '../common/errors/upstream.error';
import { AppConfig } from '../config/app-config';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { MetricsService } from '../metrics/metrics.service';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';
import { ProviderRegistry } from '../providers/provider-registry.service';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter } from './deployment-router.service';
import type { PipelineRun } from './pipeline-run';
import type { RequestDeadlines } from './request-deadlines';
import type { UpstreamSignal } from '../providers/attempt-signal';

/** Response headers that tell an operator how a request was routed (docs/providers-and-routing.md). */
export const ROUTING_HEADERS = {
  deployment: 'x-gateway-deployment',
  attempts: 'x-gateway-attempts',
  overhead: 'x-gateway-overhead-ms',
} as const;

export interface RouterSettings {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryAfterMaxMs: number;
}

/** What the attempts of one request do on each deployment they try. */
export interface AttemptPlan<T> {
  /** What an attempt's deadline bounds, as its timeout error names it. */
  bounds: string;
  /** The deadline of one attempt on `deployment`. */
  timeoutOf(deployment: DeploymentConfig): number;
  /**
   * One attempt, which settles only once the answer (or a stream's first part) is in hand:
   * nothing has reached the client while it runs, which is what makes another attempt safe.
   * `signal` is the attempt's; `deadlines.race()` bounds each wait on it.
   */
  call(
    adapter: ProviderAdapter,
    deployment: DeploymentConfig,
    signal: UpstreamSignal,
    deadlines: RequestDeadlines,
  ): Promise<T>;
}

export interface Routed<T> {
  result: T;
  deployment: DeploymentConfig;
  adapter: ProviderAdapter;
}

/**
 * Runs a request's attempts: the deployments in the router's order, one after another until one
 * succeeds, at most ROUTER_MAX_ATTEMPTS of them and each once, with a backoff between two.
 * Another deployment is tried only when the failure is the provider's (connection, an attempt's
 * timeout, 429, 5xx, its key refused), never when the request is at fault, the client has left
 * or the request's own deadline (request_timeout_ms) has passed.
 */
@Injectable()
export class AttemptsService {
  private readonly logger = new Logger('DeploymentRouter');
  readonly settings: RouterSettings;

  constructor(
    private readonly router: DeploymentRouter,
    private readonly registry: ProviderRegistry,
    private readonly health: DeploymentHealthService,
    private readonly metrics: MetricsService,
    config: AppConfig,
  ) {
    this.settings = {
      maxAttempts: config.ROUTER_MAX_ATTEMPTS,
      backoffBaseMs: config.ROUTER_BACKOFF_BASE_MS,
      backoffMaxMs: config.ROUTER_BACKOFF_MAX_MS,
      retryAfterMaxMs: config.ROUTER_RETRY_AFTER_MAX_MS,
    };
  }

  async run<T>(
    run: PipelineRun,
    deployments: DeploymentConfig[],
    deadlines: RequestDeadlines,
    plan: AttemptPlan<T>,
  ): Promise<Routed<T>> {
    const { client } = run.context;
    const { order, failOpen } = this.router.plan(deployments);
    let upstreamMs = 0;
    let lastError: unknown;
    for (const deployment of order) {
      if (run.attempts >= this.settings.maxAttempts) break;
      // Claims the probe of a deployment just past its cool-down; another request may hold it.
      if (!this.health.tryAcquire(deployment.name) && !failOpen) continue;
      if (run.attempts > 0) {
        const waitStarted = performance.now();
        try {
          await deadlines.pause(this.delayBeforeAttempt(run.attempts, lastError));
        } catch (error) {
          // The client left or the request's deadline passed: this deployment is not tried.
          this.health.release(deployment.name);
          this.routingHeaders(run, upstreamMs + performance.now() - waitStarted);
          throw error;
        }
        upstreamMs += performance.now() - waitStarted;
        this.logger.warn(
          `deployment ${run.deployment!.name} failed (${describe(lastError)}); trying ${deployment.name}`,
        );
      }
      const endSpan = this.attemptStarting(run, deployment);
      const started = performance.now();
      const signal = deadlines.beginAttempt(plan.timeoutOf(deployment), plan.bounds);
      try {
        const adapter = this.registry.adapterFor(deployment);
        const result = await plan.call(adapter, deployment, signal, deadlines);
        upstreamMs += performance.now() - started;
        endSpan();
        this.health.recordSuccess(deployment.name);
        this.routingHeaders(run, upstreamMs, deployment);
        return { result, deployment, adapter };
      } catch (error) {
        upstreamMs += performance.now() - started;
        endSpan(error);
        lastError = error;
        // Not once the client has left, nor once request_timeout_ms has passed.
        const retryable = !client.lostReason && !deadlines.expired && isRetryable(error);
        this.noteFailure(deployment, error, retryable);
        if (!retryable) {
          this.routingHeaders(run, upstreamMs);
          throw error;
        }
      } finally {
        deadlines.endAttempt();
      }
    }
    this.routingHeaders(run, upstreamMs);
    throw lastError;
  }

  /** Exponential backoff with jitter; a provider's short Retry-After is waited out in full. */
  delayBeforeAttempt(
    attempt: number,
    lastError: unknown,
    random: () => number = Math.random,
  ): number {
    const { backoffBaseMs, backoffMaxMs, retryAfterMaxMs } = this.settings;
    const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));
    const backoff = ceiling / 2 + (random() * ceiling) / 2;
    const retryAfterMs = providerRetryAfterMs(lastError);
    return retryAfterMs !== undefined && retryAfterMs <= retryAfterMaxMs
      ? Math.max(backoff, retryAfterMs)
      : backoff;
  }

  /** The gateway's own share of the latency is what passed before the first upstream call. */
  private attemptStarting(
    run: PipelineRun,
    deployment: DeploymentConfig,
  ): (error?: unknown) => void {
    if (run.attempts++ === 0) this.metrics.overheadOf(performance.now() - run.started);
    run.deployment = deployment;
    return (
      run.trace?.attempt({
        'gen_ai.system': deployment.provider,
        'gen_ai.request.model': deployment.upstreamModel ?? deployment.publicModel,
        'gateway.deployment': deployment.name,
        ...(deployment.baseUrl ? { 'server.address': new URL(deployment.baseUrl).host } : {}),
      }) ?? noop
    );
  }

  /** The operator headers: who served, how many attempts, the gateway's own milliseconds. */
  private routingHeaders(run: PipelineRun, upstreamMs: number, served?: DeploymentConfig): void {
    const overhead = Math.max(0, Math.round(performance.now() - run.started - upstreamMs));
    const routing: Record<string, string> = {};
    if (served) routing[ROUTING_HEADERS.deployment] = served.name;
    routing[ROUTING_HEADERS.attempts] = String(run.attempts);
    routing[ROUTING_HEADERS.overhead] = String(overhead);
    run.context.setHeaders(routing);
  }

  private noteFailure(deployment: DeploymentConfig, error: unknown, retryable: boolean): void {
    // Only the deployment's own failures count towards a cool-down: not the client leaving, not
    // an invalid request, not the gateway's own concurrency limit.
    if (!retryable || (error instanceof UpstreamError && error.kind === 'overloaded')) {
      this.health.release(deployment.name);
      return;
    }
    this.health.recordFailure(deployment.name);
    const retryAfterMs = providerRetryAfterMs(error);
    // A pause longer than the router waits is honoured by not sending there until it is over.
    if (retryAfterMs !== undefined && retryAfterMs > this.settings.retryAfterMaxMs)
      this.health.coolFor(deployment.name, retryAfterMs);
  }
}

/**
 * Worth another deployment: the provider's fault, not the request's. A 4xx other than 429 is the
 * request's, except 401/403 (this deployment's provider key is refused, another may work) and 408.
 */
export function isRetryable(error: unknown): error is UpstreamError {
  if (!(error instanceof UpstreamError) || !error.retryable) return false;
  const status = error.options.upstreamStatus;
  return status === undefined || status >= 500 || [401, 403, 408, 429].includes(status);
}

function providerRetryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof UpstreamError) || error.kind === 'overloaded') return undefined;
  const seconds = error.options.retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function noop(): void {}
