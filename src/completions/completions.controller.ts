import { Body, Controller, HttpCode, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { CurrentKey } from '../auth/current-key.decorator';
import { ClientAbortSignal } from '../common/http/client-abort-signal.decorator';
import { RequestId } from '../common/http/request-id.decorator';
import { ResponseHeaders, SetResponseHeaders } from '../common/http/response-headers.decorator';
import { SseInterceptor } from '../common/sse/sse.interceptor';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { KeyThrottlerGuard } from '../throttling/key-throttler.guard';
import { ChatCompletionBodyPipe } from './chat-completion-body.pipe';
import type { ChatCompletion, ChatCompletionChunk } from './chat-completion.types';
import { CompletionsService } from './completions.service';
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
    @CurrentKey() key: VirtualKeyView,
    @RequestId() requestId: string,
    @ClientAbortSignal() signal: AbortSignal,
    @ResponseHeaders() setHeaders: SetResponseHeaders,
  ): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>> {
    const context = { key, requestId, signal, setHeaders };
    return body.stream ? this.completions.stream(body, context) : this.completions.complete(body, context);
  }
}
