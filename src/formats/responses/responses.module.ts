import { Module } from '@nestjs/common';
import { PipelineModule } from '../../pipeline/pipeline.module';
import { ResponsesController } from './responses.controller';
import { ResponsesService } from './responses.service';
import { ResponseRetention } from './store/response-retention.service';
import { ResponseStoreRepository } from './store/response-store.repository';
import { ResponseStore } from './store/response-store.service';
import { StoredResponsesController } from './stored-responses.controller';

/**
 * OpenAI's Responses API on the pipeline, and its response store (docs/responses.md). Its errors
 * use OpenAI's envelope, the default, so it registers none.
 */
@Module({
  imports: [PipelineModule],
  controllers: [ResponsesController, StoredResponsesController],
  providers: [ResponsesService, ResponseStore, ResponseStoreRepository, ResponseRetention],
})
export class ResponsesModule {}
