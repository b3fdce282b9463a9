import type { TeamView } from '../teams/team.types';
import { Injectable, Logger, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { performance } from 'node:perf_hooks';
import type { SetResponseHeaders } from '../common/http/response-headers';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { GatewayConfigService } from '../config/gateway-config.service';
import { GatewayException } from '../common/errors/gateway.exception';
import type { ClientConnection } from '../common/http/client-connection';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { PricedCandidate } from '../limits/token-reservation';
import { ProviderRegistry } from '../providers/provider-registry.service';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';
import { UpstreamError } from '../common/errors/upstream.error';
import { DeploymentHealthService } from './deployment-health.service';
import { weightedOrder } from './weighted-order';

/** Response headers that tell an operator how a completion was routed (docs/providers-and-routing.md, "Routing"). */
export const ROUTING_HEADERS = {
  deployment: 'x-gateway-deployment',
  attempts: 'x-gateway-attempts',
  overhead: 'x-gateway-overhead-ms',
} as const;

export interface RoutingReport {
  /** performance.now() when the completion service took the request. */
  acceptedAt: number;
  setHeaders: SetResponseHeaders;
}

export interface Routed<T> {
  result: T;
  deployment: DeploymentConfig;
  attempts: number;
}

export interface RouterSettings {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryAfterMaxMs: number;
}

const DEFAULTS: RouterSettings = {
  maxAttempts: 3,
  backoffBaseMs: 25,
  backoffMaxMs: 1_000,
  retryAfterMaxMs: 2_000,
};

/**
 * Resolves a public model to its deployments and routes each request: a weighted random choice
 * among the healthy ones, then failover to another deployment, with backoff, when the failure is
 * the provider's (connection, timeout, 429, 5xx, its key refused) and nothing reached the client
 * yet, never when the request is at fault. Health (cool-downs) lives in DeploymentHealthService.
 */
@Injectable()
export class DeploymentRouter {
  private readonly logger = new Logger(DeploymentRouter.name);
  readonly settings: RouterSettings;
  /** Per deployment list of the loaded config; a reload brings new lists, and these go with the old. */
  private readonly pricedCandidates = new WeakMap<DeploymentConfig[], PricedCandidate[]>();

  constructor(
    private readonly config: GatewayConfigService,
    private readonly registry: ProviderRegistry,
    private readonly health: DeploymentHealthService,
    @Optional() env?: ConfigService,
  ) {
    this.settings = {
      maxAttempts: env?.get<number>('ROUTER_MAX_ATTEMPTS') ?? DEFAULTS.maxAttempts,
      backoffBaseMs: env?.get<number>('ROUTER_BACKOFF_BASE_MS') ?? DEFAULTS.backoffBaseMs,
      backoffMaxMs: env?.get<number>('ROUTER_BACKOFF_MAX_MS') ?? DEFAULTS.backoffMaxMs,
      retryAfterMaxMs: env?.get<number>('ROUTER_RETRY_AFTER_MAX_MS') ?? DEFAULTS.retryAfterMaxMs,
    };
  }

  deploymentsFor(
    model: string,
    key: VirtualKeyView,
    team?: Pick<TeamView, 'allowedModels'> | null,
  ): DeploymentConfig[] {
    const deployments = this.config.deploymentsFor(model);
    if (!deployments) {
      // Only the models this key may use: the rest of the catalogue is none of its business.
      const usable = this.config
        .publicModels()
        .filter((name) => key.allowedModels.length === 0 || key.allowedModels.includes(name));
      throw new GatewayException('model_not_found', {
        param: 'model',
        message: `The model \`${model}\` does not exist.${usable.length > 0 ? ` Available models: ${usable.join(', ')}.` : ''}`,
      });
    }
    if (key.allowedModels.length > 0 && !key.allowedModels.includes(model)) {
      throw new GatewayException('model_not_allowed', {
        param: 'model',
        message: `This API key is not allowed to use the model \`${model}\`.`,
      });
    }
    // The team's allow-list applies on top of the key's: a model must be in both (docs/spend.md).
    if (team && team.allowedModels.length > 0 && !team.allowedModels.includes(model)) {
      throw new GatewayException('model_not_allowed', {
        param: 'model',
        message: `This API key's team is not allowed to use the model \`${model}\`.`,
      });
    }
    return deployments;
  }

  /** What a dollar hold must cover for each deployment a request may be routed to. */
  pricedCandidatesFor(deployments: DeploymentConfig[]): PricedCandidate[] {
    let candidates = this.pricedCandidates.get(deployments);
    if (!candidates) {
      candidates = deployments.map((deployment) => ({
        price: deployment.price,
        maxTokens: this.registry.adapterFor(deployment).impliedMaxTokens?.(deployment),
      }));
      this.pricedCandidates.set(deployments, candidates);
    }
    return candidates;
  }

  /**
   * The order in which a request tries the deployments: the available ones with a weight, in
   * weighted random order, then the available standbys (`weight: 0`) in config order. When every
   * deployment is cooling down the gateway fails open and tries them all, the one whose
   * cool-down ends first first, rather than refusing a request it might still serve.
   */
  plan(
    deployments: DeploymentConfig[],
    now = Date.now(),
  ): { order: DeploymentConfig[]; failOpen: boolean } {
    const available = deployments.filter((deployment) =>
      this.health.isAvailable(deployment.name, now),
    );
    if (available.length === 0) {
      const order = [...deployments].sort(
        (a, b) => this.health.availableAt(a.name) - this.health.availableAt(b.name),
      );
      return { order, failOpen: true };
    }
    const standby = available.filter((deployment) => (deployment.weight ?? 1) <= 0);
    return {
      order: [...weightedOrder(available, (deployment) => deployment.weight ?? 1), ...standby],
      failOpen: false,
    };
  }

  /**
   * Runs `call` on one deployment after another until one succeeds, at most
   * ROUTER_MAX_ATTEMPTS times and each deployment once. `call` must settle only once the
   * answer (or a stream's first part) is in hand: nothing has reached the client while it runs,
   * which is what makes another attempt safe. `report` receives the operator headers.
   */
  async withFailover<T>(
    deployments: DeploymentConfig[],
    client: ClientConnection,
    call: (adapter: ProviderAdapter, deployment: DeploymentConfig) => Promise<T>,
    report?: RoutingReport,
  ): Promise<Routed<T>> {
    const { order, failOpen } = this.plan(deployments);
    let attempts = 0;
    let upstreamMs = 0;
    let lastError: unknown;
    let last: DeploymentConfig | undefined;
    const headers = (served?: DeploymentConfig) => {
      if (!report) return;
      const overhead = Math.max(0, Math.round(performance.now() - report.acceptedAt - upstreamMs));
      const routing: Record<string, string> = {};
      if (served) routing[ROUTING_HEADERS.deployment] = served.name;
      routing[ROUTING_HEADERS.attempts] = String(attempts);
      routing[ROUTING_HEADERS.overhead] = String(overhead);
      report.setHeaders(routing);
    };
    for (const deployment of order) {
      if (attempts >= this.settings.maxAttempts) break;
      // Claims the probe of a deployment just past its cool-down; another request may hold it.
      if (!this.health.tryAcquire(deployment.name) && !failOpen) continue;
      if (attempts > 0) {
        const waitStarted = performance.now();
        await abortableSleep(this.delayBeforeAttempt(attempts, lastError), client);
        upstreamMs += performance.now() - waitStarted;
        this.logger.warn(
          `deployment ${last!.name} failed (${describe(lastError)}); trying ${deployment.name}`,
        );
      }
      attempts++;
      last = deployment;
      const started = performance.now();
      try {
        const result = await call(this.registry.adapterFor(deployment), deployment);
        upstreamMs += performance.now() - started;
        this.health.recordSuccess(deployment.name);
        headers(deployment);
        return { result, deployment, attempts };
      } catch (error) {
        upstreamMs += performance.now() - started;
        lastError = error;
        const retryable = !client.lostReason && isRetryable(error);
        this.noteFailure(deployment, error, retryable);
        if (!retryable) {
          headers();
          throw error;
        }
      }
    }
    headers();
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

/** Waits `ms`, or rejects with the client's ClientDisconnectedError as soon as it is gone. */
function abortableSleep(ms: number, client: ClientConnection): Promise<void> {
  if (client.lostReason) return Promise.reject(client.lostReason);
  return new Promise((resolve, reject) => {
    const stopHearing = client.onLost((reason) => {
      clearTimeout(timer);
      reject(reason);
    });
    const timer = setTimeout(() => {
      stopHearing();
      resolve();
    }, ms);
  });
}
