import {
  Body,
  Controller,
  HttpCode,
  Post,
  UseGuards,
  UseInterceptors,
  Version,
} from '@nestjs/common';
import { SseInterceptor } from '../common/sse/sse.interceptor';
import { KeyThrottlerGuard } from '../throttling/key-throttler.guard';
import { ChatCompletionBodyPipe } from './chat-completion-body.pipe';
import type { ChatCompletion, ChatCompletionChunk } from './chat-completion.types';
import { CompletionRequest } from './completion-context.decorator';
import { CompletionsService, type CompletionContext } from './completions.service';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';
import { ResponseMode } from './response-mode';

// Guards bound here run after the global ApiKeyGuard, so the throttler sees the authenticated key.
// One path, two handlers: Nest picks by the body's `stream` (response-mode.ts), so that only a
// stream goes through the SSE interceptor. The JSON handler is registered first: Express tries
// it first, and a stream passes it by.
@Controller('v1')
@UseGuards(KeyThrottlerGuard)
export class CompletionsController {
  constructor(private readonly completions: CompletionsService) {}

  @Post('chat/completions')
  @Version(ResponseMode.json)
  @HttpCode(200)
  complete(
    // An interface, so the global ValidationPipe leaves the body to ChatCompletionBodyPipe.
    @Body(ChatCompletionBodyPipe) body: CreateChatCompletionDto,
    @CompletionRequest() context: CompletionContext,
  ): Promise<ChatCompletion> {
    return this.completions.complete(body, context);
  }

  @Post('chat/completions')
  @Version(ResponseMode.stream)
  @HttpCode(200)
  @UseInterceptors(SseInterceptor)
  stream(
    @Body(ChatCompletionBodyPipe) body: CreateChatCompletionDto,
    @CompletionRequest() context: CompletionContext,
  ): Promise<AsyncIterable<ChatCompletionChunk[]>> {
    return this.completions.stream(body, context);
  }
}
