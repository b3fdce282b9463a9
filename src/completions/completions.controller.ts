import { Body, Controller, HttpCode, Post, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentKey } from '../auth/current-key.decorator';
import { ClientAbortSignal } from '../common/http/client-abort-signal.decorator';
import { RequestId } from '../common/http/request-id.decorator';
import { ResponseHeaders, SetResponseHeaders } from '../common/http/response-headers.decorator';
import { SseInterceptor } from '../common/sse/sse.interceptor';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { OUTCOME_RECORDED } from '../metrics/metrics.middleware';
import { KeyThrottlerGuard } from '../throttling/key-throttler.guard';
import { ChatCompletionBodyPipe } from './chat-completion-body.pipe';
import type { ChatCompletion, ChatCompletionChunk } from './chat-completion.types';
import type { CompletionOutcome } from '../usage/completion-outcome';
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
    @Res({ passthrough: true }) response: Response,
  ): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk[]>> {
    const report = (outcome: CompletionOutcome) => {
      // Read by the request's log line (requestLogMiddleware) and by the metrics middleware.
      response.locals[OUTCOME_RECORDED] = true;
      response.locals.log = {
        model: outcome.publicModel,
        deployment: outcome.deployment,
        attempts: outcome.attempts,
        promptTokens: outcome.usage.promptTokens,
        completionTokens: outcome.usage.completionTokens,
        ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      };
    };
    const context = { key, requestId, signal, setHeaders, report };
    return body.stream
      ? this.completions.stream(body, context)
      : this.completions.complete(body, context);
  }
}
