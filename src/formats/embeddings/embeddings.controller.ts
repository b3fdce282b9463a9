import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { RequestContext, type PipelineContext } from '../../pipeline/pipeline-context';
import { Pipeline } from '../../pipeline/pipeline.service';
import { countInputTokens } from '../../providers/embeddings/embedding-input';
import { KeyThrottlerGuard } from '../../throttling/key-throttler.guard';
import { EmbeddingsBodyPipe } from './embeddings-body.pipe';
import { toCanonicalEmbedRequest, type EmbeddingsBody } from './embeddings.request';
import { toEmbeddingList, type EmbeddingList } from './embeddings.response';

// Guards bound here run after the global ApiKeyGuard, so the throttler sees the authenticated key.
@Controller('v1')
@UseGuards(KeyThrottlerGuard)
export class EmbeddingsController {
  constructor(private readonly pipeline: Pipeline) {}

  @Post('embeddings')
  @HttpCode(200)
  async create(
    @Body(EmbeddingsBodyPipe) body: EmbeddingsBody,
    @RequestContext() context: PipelineContext,
  ): Promise<EmbeddingList> {
    const answer = await this.pipeline.embed(
      toCanonicalEmbedRequest(body),
      countInputTokens(body.inputs),
      context,
    );
    return toEmbeddingList(answer, body.model, body.encodingFormat);
  }
}
