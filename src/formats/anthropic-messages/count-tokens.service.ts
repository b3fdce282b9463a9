import { Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { estimateTokens } from '../../common/tokens/token-estimate';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { estimatePromptTokens } from '../../limits/token-reservation';
import type { PipelineContext } from '../../pipeline/pipeline-context';
import { DeploymentRouter } from '../../pipeline/deployment-router.service';
import { ProviderRegistry } from '../../providers/provider-registry.service';
import { TeamsService } from '../../teams/teams.service';
import { forwardedHeaders } from './anthropic-messages.canonical';
import { toChatRequest, type TranslatedRequest } from './anthropic-messages.request';
import type { CountTokensRequest } from './anthropic-messages.types';

/**
 * POST /v1/messages/count_tokens: the prompt's tokens, counted by the deployment the model
 * would route to first when it is Anthropic's (its own count endpoint), estimated otherwise.
 * It needs a key allowed the model and counts toward the key's request rate (the controller's
 * throttler), but it is no completion: no token or dollar hold, no usage row, and a failing
 * count never marks a deployment unhealthy; it falls back to the estimate instead.
 */
@Injectable()
export class TokenCounter {
  private readonly logger = new Logger('CountTokens');

  constructor(
    private readonly models: GatewayConfigService,
    private readonly router: DeploymentRouter,
    private readonly registry: ProviderRegistry,
    private readonly teams: TeamsService,
  ) {}

  async count(
    body: CountTokensRequest,
    headers: IncomingHttpHeaders,
    context: PipelineContext,
  ): Promise<number> {
    const { key } = context;
    const team = key.teamId ? await this.teams.forKey(key) : null;
    // 404 for an unknown model, 403 outside the key's or team's allow-list, as a message would.
    const deployments = this.router.deploymentsFor(this.models.publicModel(body.model), key, team);
    const [first] = this.router.plan(deployments).order;
    const native =
      first?.provider === 'anthropic' ? this.registry.adapterFor(first).native : undefined;
    if (native?.countTokens) {
      const abort = new AbortController();
      const stopListening = context.client.onLost((reason) => abort.abort(reason));
      try {
        return await native.countTokens({
          deployment: first,
          body: body as unknown as Record<string, unknown>,
          headers: forwardedHeaders(headers),
          signal: abort.signal,
          requestId: context.requestId,
        });
      } catch (error) {
        if (context.client.lostReason) throw context.client.lostReason;
        this.logger.warn(
          `request ${context.requestId}: ${first.name} could not count tokens, estimating: ${(error as Error).message}`,
        );
      } finally {
        stopListening();
      }
    }
    return estimateInputTokens(toChatRequest(body));
  }
}

/**
 * The prompt as the token reservations estimate it (four characters a token), and the tool
 * definitions, which the model reads too.
 */
export function estimateInputTokens({ messages, parameters }: TranslatedRequest): number {
  const tools =
    parameters.tools === undefined ? 0 : estimateTokens(JSON.stringify(parameters.tools));
  return estimatePromptTokens(messages) + tools;
}
