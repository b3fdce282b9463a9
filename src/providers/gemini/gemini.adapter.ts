import { Injectable } from '@nestjs/common';
import { refuseUnsupported } from '../chat-input';
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
import type { SseEventMapper } from '../upstream-sse.reader';
import { UpstreamError } from '../../common/errors/upstream.error';
import {
  buildGeminiRequest,
  GeminiStreamMapper,
  geminiErrorFromResponse,
  geminiHeaders,
  geminiUrl,
  mapGeminiResponse,
} from './gemini.mapping';
import { countInputTokens, textInputs } from '../embeddings/embedding-input';
import {
  buildBatchEmbedBody,
  GEMINI_EMBED_BATCH,
  geminiEmbedUrl,
  mapBatchEmbeddings,
} from './gemini.embeddings';

/** Google's Gemini API: {base_url}/models/<model>:generateContent, or :streamGenerateContent?alt=sse. */
@Injectable()
export class GeminiAdapter implements ProviderAdapter {
  readonly provider = 'gemini';

  constructor(private readonly http: UpstreamHttpClient) {}

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    refuseUnsupported(request.parameters, this.provider);
    return mapGeminiResponse(await this.http.postJson(this.requestOf(request, false)));
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>> {
    refuseUnsupported(request.parameters, this.provider);
    return this.http.postSse(this.requestOf(request, true), eventMapper());
  }

  /**
   * batchEmbedContents in calls of at most GEMINI_EMBED_BATCH texts, one after another. Gemini
   * reports no token counts: the gateway's own count is charged (docs/embeddings.md).
   */
  async embed(request: UpstreamEmbedRequest): Promise<UpstreamEmbedResult> {
    const { deployment } = request;
    const texts = textInputs(request.inputs, this.provider);
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += GEMINI_EMBED_BATCH) {
      const batch = texts.slice(start, start + GEMINI_EMBED_BATCH);
      const json = await this.http.postJson({
        url: geminiEmbedUrl(deployment),
        headers: geminiHeaders(deployment, request.requestId),
        body: JSON.stringify(buildBatchEmbedBody(deployment, batch, request.dimensions)),
        timeoutMs: deployment.timeoutMs,
        signal: request.signal,
        deployment,
        errorFromResponse: geminiErrorFromResponse,
      });
      vectors.push(...mapBatchEmbeddings(json, batch.length));
    }
    return { vectors, usage: { promptTokens: countInputTokens(texts), completionTokens: 0 } };
  }

  private requestOf(request: UpstreamChatRequest, stream: boolean): UpstreamHttpRequest {
    const { deployment } = request;
    return {
      url: geminiUrl(deployment, stream),
      headers: geminiHeaders(deployment, request.requestId),
      body: JSON.stringify(buildGeminiRequest(request)),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
      errorFromResponse: geminiErrorFromResponse,
    };
  }
}

/** Gemini's events -> stream parts. Gemini has no end marker: the body ends after the chunk with a finishReason. */
function eventMapper(): SseEventMapper<UpstreamStreamPart> {
  const mapper = new GeminiStreamMapper();
  let finished = false;
  return {
    map: (event) => {
      const parts = mapper.map(event.data);
      for (const part of parts) if (part.type === 'delta' && part.finishReason) finished = true;
      return parts;
    },
    end: () => {
      if (!finished)
        throw new UpstreamError('invalid_response', 'stream ended before a finishReason');
      return mapper.finish();
    },
  };
}
