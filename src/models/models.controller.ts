import { Controller, Get, Headers, Param } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { CurrentKey } from '../auth/current-key.decorator';
import { isAnthropicClient } from '../formats/anthropic-messages/anthropic-messages.errors';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { TeamsService } from '../teams/teams.service';
import {
  AnthropicModelInfo,
  AnthropicModelList,
  ModelCatalog,
  ModelObject,
} from './model-catalog.service';

/**
 * The models API for virtual keys, in OpenAI's shape, or in Anthropic's for an Anthropic client
 * (an `anthropic-version` header, or the key sent as `x-api-key`), which Claude Code discovers
 * its models with. Authenticated by the global ApiKeyGuard; not counted against the key's
 * request rate (a client lists models once, it is no completion).
 */
@Controller('v1/models')
export class ModelsController {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly teams: TeamsService,
  ) {}

  @Get()
  async list(
    @CurrentKey() key: VirtualKeyView,
    @Headers() headers: IncomingHttpHeaders,
  ): Promise<{ object: 'list'; data: ModelObject[] } | AnthropicModelList> {
    const team = await this.teams.forKey(key);
    if (isAnthropicClient({ headers })) return this.catalog.listAnthropic(key, team);
    return { object: 'list', data: this.catalog.list(key, team) };
  }

  // Express decodes the parameter, so an id with a slash arrives whole when sent as %2F (as the
  // openai clients do).
  @Get(':id')
  async retrieve(
    @Param('id') id: string,
    @CurrentKey() key: VirtualKeyView,
    @Headers() headers: IncomingHttpHeaders,
  ): Promise<ModelObject | AnthropicModelInfo> {
    const team = await this.teams.forKey(key);
    if (isAnthropicClient({ headers })) return this.catalog.getAnthropic(id, key, team);
    return this.catalog.get(id, key, team);
  }
}
