import { Injectable } from '@nestjs/common';
import { GatewayException } from '../common/errors/gateway.exception';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { TokenLimitsService } from '../limits/token-limits.service';
import type { ReservableRequest } from '../limits/token-reservation';
import { TeamsService } from '../teams/teams.service';
import type { CanonicalRequest } from './canonical';
import { DeploymentRouter } from './deployment-router.service';
import { OutcomeService } from './outcome.service';
import type { PipelineRun } from './pipeline-run';

export interface Admitted {
  deployments: DeploymentConfig[];
  /** `request_timeout_ms` of the request's model. */
  requestTimeoutMs: number;
}

/**
 * Whether a request may go upstream at all: its model exists and is allowed to the key and its
 * team, and their token and dollar limits have room, which is then held for it (`run.reservation`,
 * settled by the outcome). A refusal (404, 403, 429) is thrown before any upstream call.
 */
@Injectable()
export class AdmissionService {
  constructor(
    private readonly router: DeploymentRouter,
    private readonly tokenLimits: TokenLimitsService,
    private readonly teams: TeamsService,
    private readonly outcome: OutcomeService,
  ) {}

  /** The deployments the request may be routed to, and its deadline. */
  async admit(run: PipelineRun): Promise<Admitted> {
    const { key, setHeaders } = run.context;
    try {
      // Most keys have no team: no promise to wait on for them.
      const team = key.teamId ? await this.teams.forKey(key) : null;
      const deployments = this.router.deploymentsFor(run.request.model, key, team);
      refuseOtherType(run.request, deployments);
      run.reservation = await this.tokenLimits.reserve(key, reservable(run.request), setHeaders, {
        team,
        candidates: this.router.pricedCandidatesFor(deployments),
      });
      return { deployments, requestTimeoutMs: this.router.requestTimeoutFor(run.request.model) };
    } catch (error) {
      this.outcome.refused(run, error);
      throw error;
    }
  }
}

/** What the holds are worked out from: the prompt, the completion cap and the choices asked for. */
function reservable({
  model,
  messages,
  parameters,
  promptTokens,
}: CanonicalRequest): ReservableRequest {
  return {
    // The model picks the tokenizers; tools and a response schema are prompt text too.
    model,
    messages,
    tools: parameters.tools as unknown[] | undefined,
    response_format: parameters.response_format,
    promptTokens,
    max_tokens: parameters.max_tokens as number | undefined,
    max_completion_tokens: parameters.max_completion_tokens as number | undefined,
    n: parameters.n as number | undefined,
  };
}

const ENDPOINT_OF = { chat: '/v1/chat/completions', embedding: '/v1/embeddings' } as const;

/** A chat request to an embedding model, or the reverse: the answer names the right endpoint. */
function refuseOtherType(request: CanonicalRequest, deployments: DeploymentConfig[]): void {
  const served = deployments[0].type;
  if (served === (request.type ?? 'chat')) return;
  throw new GatewayException('model_not_supported', {
    param: 'model',
    message: `The model \`${request.model}\` is ${served === 'embedding' ? 'an embedding' : 'a chat'} model: use ${ENDPOINT_OF[served]}.`,
  });
}
