import { Controller, Get, Param } from '@nestjs/common';
import { CurrentKey } from '../auth/current-key.decorator';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { ModelCatalog, ModelObject } from './model-catalog.service';

/**
 * OpenAI's models API for virtual keys. Authenticated by the global ApiKeyGuard; not counted
 * against the key's request rate (a client lists models once, it is no completion).
 */
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly catalog: ModelCatalog) {}

  @Get()
  list(@CurrentKey() key: VirtualKeyView): { object: 'list'; data: ModelObject[] } {
    return { object: 'list', data: this.catalog.list(key) };
  }

  // Express decodes the parameter, so an id with a slash arrives whole when sent as %2F (as the
  // openai clients do).
  @Get(':id')
  retrieve(@Param('id') id: string, @CurrentKey() key: VirtualKeyView): ModelObject {
    return this.catalog.get(id, key);
  }
}
