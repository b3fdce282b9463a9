import { Module } from '@nestjs/common';
import { ResponseRetention } from './store/response-retention.service';
import { ResponseStoreRepository } from './store/response-store.repository';
import { ResponseStore } from './store/response-store.service';
import { StoredResponsesController } from './stored-responses.controller';

/** OpenAI's Responses API: /v1/responses and its response store (docs/responses.md). */
@Module({
  controllers: [StoredResponsesController],
  providers: [ResponseStore, ResponseStoreRepository, ResponseRetention],
})
export class ResponsesModule {}
