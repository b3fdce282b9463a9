import { Module, type OnModuleInit } from '@nestjs/common';
import { ErrorEnvelopes } from '../../common/filters/error-envelope';
import { PipelineModule } from '../../pipeline/pipeline.module';
import { ProvidersModule } from '../../providers/providers.module';
import { AnthropicMessagesController } from './anthropic-messages.controller';
import { ANTHROPIC_ERROR_ENVELOPE, speaksAnthropic } from './anthropic-messages.errors';
import { TokenCounter } from './count-tokens.service';

/**
 * Anthropic's Messages wire format on the pipeline (docs/messages.md): POST /v1/messages and
 * /v1/messages/count_tokens, answered, errors included, in Anthropic's shape.
 */
@Module({
  imports: [PipelineModule, ProvidersModule],
  controllers: [AnthropicMessagesController],
  providers: [TokenCounter],
})
export class AnthropicMessagesModule implements OnModuleInit {
  constructor(private readonly envelopes: ErrorEnvelopes) {}

  onModuleInit(): void {
    this.envelopes.register(speaksAnthropic, ANTHROPIC_ERROR_ENVELOPE);
  }
}
