import { Module } from '@nestjs/common';
import { PipelineModule } from '../../pipeline/pipeline.module';
import { EmbeddingsController } from './embeddings.controller';

/** OpenAI's embeddings wire format on the pipeline; its errors use OpenAI's (default) envelope. */
@Module({
  imports: [PipelineModule],
  controllers: [EmbeddingsController],
})
export class EmbeddingsModule {}
