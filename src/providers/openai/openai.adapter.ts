import { Injectable } from '@nestjs/common';
import type {
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamEmbedRequest,
  UpstreamEmbedResult,
  UpstreamStreamBatch,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { UpstreamHttpClient, type UpstreamHttpRequest } from '../upstream-http.client';
import type { SseEventMapper, UpstreamSseEvent } from '../upstream-sse.reader';
import { UpstreamError } from '../../common/errors/upstream.error';
import { buildEmbeddingsBody, mapEmbeddings } from './openai.embeddings';
import { buildHeaders, buildRequestBody, mapCompletion, mapStreamEvent } from './openai.mapping';

/** Any provider that speaks OpenAI's chat-completions wire format (OpenAI, vLLM, Groq, ...). */
@Injectable()
export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly provider = 'openai';

  constructor(private readonly http: UpstreamHttpClient) {}

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    return mapCompletion(await this.http.postJson(this.requestOf(request, false)), request);
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>> {
    return this.http.postSse(this.requestOf(request, true), new OpenAiStreamMapper());
  }

  async embed(request: UpstreamEmbedRequest): Promise<UpstreamEmbedResult> {
    const { deployment } = request;
    const json = await this.http.postJson({
      url: `${deployment.baseUrl}/embeddings`,
      headers: buildHeaders(deployment, request.requestId),
      body: JSON.stringify(buildEmbeddingsBody(request)),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
    });
    return mapEmbeddings(json, request.inputs.length);
  }

  private requestOf(request: UpstreamChatRequest, stream: boolean): UpstreamHttpRequest {
    const { deployment } = request;
    return {
      url: `${deployment.baseUrl}/chat/completions`,
      headers: buildHeaders(deployment, request.requestId),
      body: JSON.stringify(buildRequestBody(request, stream)),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
    };
  }
}

/** OpenAI's `data:` payloads -> stream parts; the stream ends at `[DONE]` or after a finish_reason. */
class OpenAiStreamMapper implements SseEventMapper<UpstreamStreamPart> {
  private sawDone = false;
  private sawFinish = false;

  map(event: UpstreamSseEvent): readonly UpstreamStreamPart[] {
    if (isDone(event)) {
      this.sawDone = true;
      return NO_PARTS;
    }
    const parts = mapStreamEvent(event.data);
    for (const part of parts) if (part.type === 'delta' && part.finishReason) this.sawFinish = true;
    return parts;
  }

  isFinal(event: UpstreamSseEvent): boolean {
    return isDone(event);
  }

  end(): readonly UpstreamStreamPart[] {
    if (!this.sawDone && !this.sawFinish)
      throw new UpstreamError('invalid_response', 'stream ended before a finish_reason or [DONE]');
    return NO_PARTS;
  }
}

const NO_PARTS: readonly UpstreamStreamPart[] = [];
const isDone = (event: { data: string }) => event.data === '[DONE]';
