import { Module } from '@nestjs/common';
import { PipelineModule } from '../../pipeline/pipeline.module';
import { ChatCompletionsController } from './chat-completions.controller';

/**
 * OpenAI's chat-completions wire format on the pipeline. Its errors use OpenAI's envelope, the
 * default (common/filters/error-envelope.ts), so it registers none.
 */
@Module({
  imports: [PipelineModule],
  controllers: [ChatCompletionsController],
})
export class ChatCompletionsModule {}
