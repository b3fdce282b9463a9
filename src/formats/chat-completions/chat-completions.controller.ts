import {
  Body,
  Controller,
  HttpCode,
  Post,
  UseGuards,
  UseInterceptors,
  Version,
} from '@nestjs/common';
import { EventStream } from '../../common/sse/sse-encoder';
import { SseInterceptor } from '../../common/sse/sse.interceptor';
import type { CanonicalStreamEvent, StreamEnd } from '../../pipeline/canonical';
import { RequestContext, type PipelineContext } from '../../pipeline/pipeline-context';
import { Pipeline } from '../../pipeline/pipeline.service';
import { KeyThrottlerGuard } from '../../throttling/key-throttler.guard';
import { ResponseMode } from '../response-mode';
import { ChatCompletionBodyPipe } from './chat-completion-body.pipe';
import type { ChatCompletion } from './chat-completion.types';
import { toCanonicalRequest } from './chat-completions.request';
import { toChatCompletion } from './chat-completions.response';
import { ChatCompletionChunks } from './chat-completions.stream';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';

// Guards bound here run after the global ApiKeyGuard, so the throttler sees the authenticated key.
// One path, two handlers: Nest picks by the body's `stream` (response-mode.ts), so that only a
// stream goes through the SSE interceptor. The JSON handler is registered first: Express tries
// it first, and a stream passes it by.
@Controller('v1')
@UseGuards(KeyThrottlerGuard)
export class ChatCompletionsController {
  constructor(private readonly pipeline: Pipeline) {}

  @Post('chat/completions')
  @Version(ResponseMode.json)
  @HttpCode(200)
  async complete(
    // An interface, so the global ValidationPipe leaves the body to ChatCompletionBodyPipe.
    @Body(ChatCompletionBodyPipe) body: CreateChatCompletionDto,
    @RequestContext() context: PipelineContext,
  ): Promise<ChatCompletion> {
    const answer = await this.pipeline.complete(toCanonicalRequest(body), context);
    return toChatCompletion(answer, body.model);
  }

  @Post('chat/completions')
  @Version(ResponseMode.stream)
  @HttpCode(200)
  @UseInterceptors(SseInterceptor)
  async stream(
    @Body(ChatCompletionBodyPipe) body: CreateChatCompletionDto,
    @RequestContext() context: PipelineContext,
  ): Promise<EventStream<CanonicalStreamEvent, StreamEnd>> {
    const events = await this.pipeline.stream(toCanonicalRequest(body), context);
    const includeUsage = body.stream_options?.include_usage === true;
    return new EventStream(events, new ChatCompletionChunks(body.model, includeUsage));
  }
}
