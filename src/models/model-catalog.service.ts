import { Injectable } from '@nestjs/common';
import { GatewayException } from '../common/errors/gateway.exception';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { TeamView } from '../teams/team.types';

type Team = Pick<TeamView, 'allowedModels'> | null;

/** One entry of `GET /v1/models`, in OpenAI's shape. */
export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** One entry of `GET /v1/models` in Anthropic's shape (an Anthropic client asked). */
export interface AnthropicModelInfo {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

/** Anthropic's list shape: one page, all of it. */
export interface AnthropicModelList {
  data: AnthropicModelInfo[];
  has_more: false;
  first_id: string | null;
  last_id: string | null;
}

/** The public models a virtual key may use, as OpenAI's and Anthropic's models APIs list them. */
@Injectable()
export class ModelCatalog {
  /**
   * The gateway has no creation date for a public model; it reports when this instance loaded
   * the configuration that declares it (stable for the life of the process).
   */
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly config: GatewayConfigService) {}

  list(key: VirtualKeyView, team: Team = null): ModelObject[] {
    return this.config
      .publicModels()
      .filter((model) => mayUse(key, team, model))
      .map((model) => this.toModelObject(model));
  }

  /** A model the key may not use is answered like an unknown one: its existence is not revealed. */
  get(id: string, key: VirtualKeyView, team: Team = null): ModelObject {
    if (!this.config.deploymentsFor(id) || !mayUse(key, team, id)) throw notFound(id);
    return this.toModelObject(id);
  }

  /**
   * The key's public models, then the exact aliases of those (`aliases:`), as Anthropic lists
   * models: an Anthropic client such as Claude Code picks its models from this list.
   */
  listAnthropic(key: VirtualKeyView, team: Team = null): AnthropicModelList {
    const data = [
      ...this.config.publicModels().filter((model) => mayUse(key, team, model)),
      ...[...this.config.exactAliases()]
        .filter(([, model]) => mayUse(key, team, model))
        .map(([alias]) => alias),
    ].map((id) => this.toModelInfo(id));
    return {
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
    };
  }

  /** One model or exact alias in Anthropic's shape; like get(), 404 for one the key may not use. */
  getAnthropic(id: string, key: VirtualKeyView, team: Team = null): AnthropicModelInfo {
    const model = this.config.deploymentsFor(id) ? id : this.config.exactAliases().get(id);
    if (model === undefined || !mayUse(key, team, model)) throw notFound(id);
    return this.toModelInfo(id);
  }

  private toModelInfo(id: string): AnthropicModelInfo {
    return {
      type: 'model',
      id,
      display_name: id,
      created_at: new Date(this.created * 1000).toISOString(),
    };
  }

  private toModelObject(model: string): ModelObject {
    // The providers that serve it, in configuration order (e.g. "openai" or "openai,anthropic").
    const providers = [
      ...new Set(this.config.deploymentsFor(model)!.map((deployment) => deployment.provider)),
    ];
    return { id: model, object: 'model', created: this.created, owned_by: providers.join(',') };
  }
}

function notFound(id: string): GatewayException {
  return new GatewayException('model_not_found', {
    param: 'model',
    message: `The model \`${id}\` does not exist or this API key may not use it.`,
  });
}

/** Allowed by the key's list and by its team's (docs/spend.md, "Teams"); an empty list allows all. */
function mayUse(key: VirtualKeyView, team: Team, model: string): boolean {
  const allows = (list: string[]) => list.length === 0 || list.includes(model);
  return allows(key.allowedModels) && (!team || allows(team.allowedModels));
}
