import { Controller, Get, Param } from '@nestjs/common';
import { CurrentKey } from '../auth/current-key.decorator';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { TeamsService } from '../teams/teams.service';
import { ModelCatalog, ModelObject } from './model-catalog.service';

/**
 * OpenAI's models API for virtual keys. Authenticated by the global ApiKeyGuard; not counted
 * against the key's request rate (a client lists models once, it is no completion).
 */
@Controller('v1/models')
export class ModelsController {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly teams: TeamsService,
  ) {}

  @Get()
  async list(@CurrentKey() key: VirtualKeyView): Promise<{ object: 'list'; data: ModelObject[] }> {
    return { object: 'list', data: this.catalog.list(key, await this.teams.forKey(key)) };
  }

  // Express decodes the parameter, so an id with a slash arrives whole when sent as %2F (as the
  // openai clients do).
  @Get(':id')
  async retrieve(@Param('id') id: string, @CurrentKey() key: VirtualKeyView): Promise<ModelObject> {
    return this.catalog.get(id, key, await this.teams.forKey(key));
  }
}
