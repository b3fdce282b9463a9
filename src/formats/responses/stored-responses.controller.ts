import { Controller, Delete, Get, HttpCode, Param, Query, UseGuards } from '@nestjs/common';
import { CurrentKey } from '../../auth/current-key.decorator';
import type { VirtualKeyView } from '../../keys/virtual-key.types';
import { KeyThrottlerGuard } from '../../throttling/key-throttler.guard';
import { InputItemsQueryDto } from './dto/input-items-query.dto';
import type { ResponseObject } from './responses.types';
import type { InputItemList } from './store/input-items-page';
import { ResponseStore } from './store/response-store.service';

/**
 * The stored responses of the calling key: retrieve, list input items, delete. Another key's
 * response, an expired or deleted one, and any id while RESPONSES_STORE=off are 404
 * response_not_found. Counted against the key's request rate like any other call.
 */
@Controller('v1/responses')
@UseGuards(KeyThrottlerGuard)
export class StoredResponsesController {
  constructor(private readonly store: ResponseStore) {}

  @Get(':id')
  retrieve(@Param('id') id: string, @CurrentKey() key: VirtualKeyView): Promise<ResponseObject> {
    return this.store.retrieve(id, key.id);
  }

  @Get(':id/input_items')
  inputItems(
    @Param('id') id: string,
    @Query() query: InputItemsQueryDto,
    @CurrentKey() key: VirtualKeyView,
  ): Promise<InputItemList> {
    return this.store.inputItems(id, key.id, query);
  }

  @Delete(':id')
  @HttpCode(200)
  delete(@Param('id') id: string, @CurrentKey() key: VirtualKeyView) {
    return this.store.delete(id, key.id);
  }
}
