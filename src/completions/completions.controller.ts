import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { SseInterceptor } from '../common/sse/sse.interceptor';
import { KeyThrottlerGuard } from '../throttling/key-throttler.guard';
import { ChatCompletionBodyPipe } from './chat-completion-body.pipe';
import type { ChatCompletion, ChatCompletionChunk } from './chat-completion.types';
import { CompletionRequest } from './completion-context.decorator';
import { CompletionsService, type CompletionContext } from './completions.service';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';

// Guards bound here run after the global ApiKeyGuard, so the throttler sees the authenticated key.
@Controller('v1')
@UseGuards(KeyThrottlerGuard)
export class CompletionsController {
  constructor(private readonly completions: CompletionsService) {}

  @Post('chat/completions')
  @HttpCode(200)
  @UseInterceptors(SseInterceptor)
  create(
    // An interface, so the global ValidationPipe leaves the body to ChatCompletionBodyPipe.
    @Body(ChatCompletionBodyPipe) body: CreateChatCompletionDto,
    @CompletionRequest() context: CompletionContext,
  ): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk[]>> {
    return body.stream
      ? this.completions.stream(body, context)
      : this.completions.complete(body, context);
  }
}
