import {
  Body,
  Controller,
  HttpCode,
  Post,
  UseGuards,
  UseInterceptors,
  Version,
} from '@nestjs/common';
import type { EventStream } from '../../common/sse/sse-encoder';
import { SseInterceptor } from '../../common/sse/sse.interceptor';
import type { CanonicalStreamEvent, StreamEnd } from '../../pipeline/canonical';
import { RequestContext, type PipelineContext } from '../../pipeline/pipeline-context';
import { KeyThrottlerGuard } from '../../throttling/key-throttler.guard';
import { ResponseMode } from '../response-mode';
import { ResponsesBodyPipe } from './responses-body.pipe';
import { ResponsesService } from './responses.service';
import type { CreateResponseDto, ResponseObject } from './responses.types';

// As for chat completions: one path, a handler per response mode, only the stream's through the
// SSE interceptor; the throttler runs after the global ApiKeyGuard and sees the key.
@Controller('v1')
@UseGuards(KeyThrottlerGuard)
export class ResponsesController {
  constructor(private readonly responses: ResponsesService) {}

  @Post('responses')
  @Version(ResponseMode.json)
  @HttpCode(200)
  create(
    // An interface, so the global ValidationPipe leaves the body to ResponsesBodyPipe.
    @Body(ResponsesBodyPipe) body: CreateResponseDto,
    @RequestContext() context: PipelineContext,
  ): Promise<ResponseObject> {
    return this.responses.complete(body, context);
  }

  @Post('responses')
  @Version(ResponseMode.stream)
  @HttpCode(200)
  @UseInterceptors(SseInterceptor)
  stream(
    @Body(ResponsesBodyPipe) body: CreateResponseDto,
    @RequestContext() context: PipelineContext,
  ): Promise<EventStream<CanonicalStreamEvent, StreamEnd>> {
    return this.responses.stream(body, context);
  }
}
