import { Injectable, Logger } from '@nestjs/common';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { GatewayConfigService } from '../config/gateway-config.service';
import { GatewayException } from '../common/errors/gateway.exception';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { ProviderRegistry } from '../providers/provider-registry.service';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';
import { UpstreamError } from '../providers/upstream.error';

/**
 * Resolves a public model to its deployments and calls them in order, moving to the next one
 * only when a failure is the provider's (rate limit, outage, timeout), never the request's.
 */
@Injectable()
export class DeploymentRouter {
  private readonly logger = new Logger(DeploymentRouter.name);

  constructor(
    private readonly config: GatewayConfigService,
    private readonly registry: ProviderRegistry,
  ) {}

  deploymentsFor(model: string, key: VirtualKeyView): DeploymentConfig[] {
    const deployments = this.config.deploymentsFor(model);
    if (!deployments) {
      // Only the models this key may use: the rest of the catalogue is none of its business.
      const usable = this.config.publicModels().filter((name) => key.allowedModels.length === 0 || key.allowedModels.includes(name));
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
    return deployments;
  }

  /** Runs `call` on each deployment until one succeeds; `onAttempt` learns which one is tried. */
  async withFailover<T>(
    deployments: DeploymentConfig[],
    signal: AbortSignal,
    call: (adapter: ProviderAdapter, deployment: DeploymentConfig) => Promise<T>,
  ): Promise<{ result: T; deployment: DeploymentConfig }> {
    let lastError: unknown;
    for (const [index, deployment] of deployments.entries()) {
      try {
        return { result: await call(this.registry.adapterFor(deployment), deployment), deployment };
      } catch (error) {
        lastError = error;
        const hasNext = index < deployments.length - 1;
        if (signal.aborted || !(error instanceof UpstreamError) || !error.retryable || !hasNext) throw error;
        this.logger.warn(`deployment ${deployment.name} failed (${error.message}); trying ${deployments[index + 1].name}`);
      }
    }
    throw lastError;
  }
}
