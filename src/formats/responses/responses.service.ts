import { Injectable } from '@nestjs/common';
import { EventStream } from '../../common/sse/sse-encoder';
import type { CanonicalRequest, CanonicalStreamEvent, StreamEnd } from '../../pipeline/canonical';
import type { PipelineContext } from '../../pipeline/pipeline-context';
import { Pipeline } from '../../pipeline/pipeline.service';
import { customToolNames } from './custom-tools';
import { newResponseId } from './response-ids';
import { toChatForm } from './responses.request';
import { finishedResponse, outputItemsOf, responseSkeleton } from './responses.response';
import { ResponseEvents } from './responses.stream';
import type { CreateResponseDto, ResponseObject } from './responses.types';
import { ResponseStore } from './store/response-store.service';

/** A request ready for the pipeline: its canonical form and the response it will become. */
interface PreparedResponse {
  request: CanonicalRequest;
  skeleton: ResponseObject;
  customNames: ReadonlySet<string>;
}

/**
 * POST /v1/responses on the pipeline: the body and the stored chain it continues become one
 * canonical request; what comes back becomes a response object or its events, stored before
 * the client reads its end (the JSON answer, or response.completed).
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly pipeline: Pipeline,
    private readonly store: ResponseStore,
  ) {}

  async complete(body: CreateResponseDto, context: PipelineContext): Promise<ResponseObject> {
    const prepared = await this.prepare(body, context);
    const answer = await this.pipeline.complete(prepared.request, context);
    // This format sends no native body, so the pipeline never answers with one.
    if (answer.type !== 'chat') throw new Error('a pass-through answer reached /v1/responses');
    const { result } = answer;
    const output = outputItemsOf(result, prepared.customNames);
    const response = finishedResponse(prepared.skeleton, output, result.finishReason, answer.usage);
    if (response.store && !(await this.store.save(context.key.id, body, response)))
      response.store = false;
    return response;
  }

  async stream(
    body: CreateResponseDto,
    context: PipelineContext,
  ): Promise<EventStream<CanonicalStreamEvent, StreamEnd>> {
    const prepared = await this.prepare(body, context);
    const events = await this.pipeline.stream(prepared.request, context);
    return new EventStream(
      events,
      new ResponseEvents({
        skeleton: prepared.skeleton,
        customNames: prepared.customNames,
        persist: (response) => this.store.save(context.key.id, body, response),
      }),
    );
  }

  /** Refuses what needs a store that is off, and reads the chain previous_response_id names. */
  private async prepare(
    body: CreateResponseDto,
    context: PipelineContext,
  ): Promise<PreparedResponse> {
    const store = this.store.storesFor(body);
    const history = await this.store.history(body, context.key.id);
    const { messages, parameters } = toChatForm(body, history);
    return {
      request: {
        endpoint: 'responses',
        model: body.model,
        messages,
        parameters,
        endUser: body.user,
      },
      skeleton: responseSkeleton(body, {
        id: newResponseId(),
        createdAt: Math.floor(Date.now() / 1000),
        model: body.model,
        store,
      }),
      customNames: customToolNames(body.tools),
    };
  }
}
