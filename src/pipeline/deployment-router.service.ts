import { Injectable } from '@nestjs/common';
import { GatewayException } from '../common/errors/gateway.exception';
import { AppConfig } from '../config/app-config';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { DeploymentConfig } from '../config/gateway-config.types';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { PricedCandidate } from '../limits/token-reservation';
import { ProviderRegistry } from '../providers/provider-registry.service';
import type { TeamView } from '../teams/team.types';
import { DeploymentHealthService } from './deployment-health.service';
import { weightedOrder } from './weighted-order';

/**
 * Resolves a public model to its deployments, checks the key's and team's allow-lists, and
 * orders the deployments for one request: a weighted random choice among the healthy ones, the
 * standbys after them. The attempts themselves (failover, backoff) are AttemptsService's; health
 * (cool-downs) lives in DeploymentHealthService.
 */
@Injectable()
export class DeploymentRouter {
  /** Per deployment list of the loaded config; a reload brings new lists, and these go with the old. */
  private readonly pricedCandidates = new WeakMap<DeploymentConfig[], PricedCandidate[]>();

  constructor(
    private readonly config: GatewayConfigService,
    private readonly registry: ProviderRegistry,
    private readonly health: DeploymentHealthService,
    private readonly settings: AppConfig,
  ) {}

  /** How long all attempts of a request for `model` may take: its own, or REQUEST_TIMEOUT_MS. */
  requestTimeoutFor(model: string): number {
    return this.config.requestTimeoutFor(model) ?? this.settings.REQUEST_TIMEOUT_MS;
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
}
