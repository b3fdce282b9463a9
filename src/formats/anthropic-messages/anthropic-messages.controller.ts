import {
  Body,
  Controller,
  Headers,
  HttpCode,
  Post,
  UseGuards,
  UseInterceptors,
  Version,
} from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { EventStream } from '../../common/sse/sse-encoder';
import { SseInterceptor } from '../../common/sse/sse.interceptor';
import { GatewayConfigService } from '../../config/gateway-config.service';
import type { CanonicalRequest, CanonicalStreamEvent, StreamEnd } from '../../pipeline/canonical';
import { RequestContext, type PipelineContext } from '../../pipeline/pipeline-context';
import { Pipeline } from '../../pipeline/pipeline.service';
import { KeyThrottlerGuard } from '../../throttling/key-throttler.guard';
import { ResponseMode } from '../response-mode';
import { CountTokensBodyPipe, MessagesBodyPipe } from './anthropic-messages-body.pipe';
import { toCanonicalRequest } from './anthropic-messages.canonical';
import { toMessagesAnswer } from './anthropic-messages.response';
import { AnthropicMessageEvents } from './anthropic-messages.stream';
import type { CountTokensRequest, MessagesRequest } from './anthropic-messages.types';
import { TokenCounter } from './count-tokens.service';

// Anthropic's Messages API on the pipeline. As chat completions, one path with two handlers that
// Nest picks by the body's `stream` (response-mode.ts), so that only a stream goes through the
// SSE interceptor; the throttler, bound here, runs after the global ApiKeyGuard.
@Controller('v1/messages')
@UseGuards(KeyThrottlerGuard)
export class AnthropicMessagesController {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly models: GatewayConfigService,
    private readonly counter: TokenCounter,
  ) {}

  @Post()
  @Version(ResponseMode.json)
  @HttpCode(200)
  async create(
    @Body(MessagesBodyPipe) body: MessagesRequest,
    @Headers() headers: IncomingHttpHeaders,
    @RequestContext() context: PipelineContext,
  ): Promise<unknown> {
    const answer = await this.pipeline.complete(this.canonical(body, headers, context), context);
    return toMessagesAnswer(answer, body.model);
  }

  @Post()
  @Version(ResponseMode.stream)
  @HttpCode(200)
  @UseInterceptors(SseInterceptor)
  async stream(
    @Body(MessagesBodyPipe) body: MessagesRequest,
    @Headers() headers: IncomingHttpHeaders,
    @RequestContext() context: PipelineContext,
  ): Promise<EventStream<CanonicalStreamEvent, StreamEnd>> {
    const events = await this.pipeline.stream(this.canonical(body, headers, context), context);
    return new EventStream(events, new AnthropicMessageEvents(body.model, context.requestId));
  }

  @Post('count_tokens')
  @HttpCode(200)
  async countTokens(
    @Body(CountTokensBodyPipe) body: CountTokensRequest,
    @Headers() headers: IncomingHttpHeaders,
    @RequestContext() context: PipelineContext,
  ): Promise<{ input_tokens: number }> {
    context.setHeaders({ 'request-id': context.requestId });
    return { input_tokens: await this.counter.count(body, headers, context) };
  }

  private canonical(
    body: MessagesRequest,
    headers: IncomingHttpHeaders,
    context: PipelineContext,
  ): CanonicalRequest {
    // Anthropic's SDKs read the request id from `request-id` (Anthropic's own header).
    context.setHeaders({ 'request-id': context.requestId });
    const deployments = this.models.deploymentsFor(this.models.publicModel(body.model));
    return toCanonicalRequest(body, headers, deployments);
  }
}
