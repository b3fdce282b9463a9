import { Injectable } from '@nestjs/common';
import { refuseUnsupported } from '../chat-input';
import type {
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamBatch,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { UpstreamHttpClient, type UpstreamHttpRequest } from '../upstream-http.client';
import { readUpstreamSse, SseEventMapper } from '../upstream-sse.reader';
import { UpstreamError } from '../../common/errors/upstream.error';
import {
  buildGeminiRequest,
  GeminiStreamMapper,
  geminiErrorFromResponse,
  geminiHeaders,
  geminiUrl,
  mapGeminiResponse,
} from './gemini.mapping';

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
    const response = await this.http.post(this.requestOf(request, true));
    return readUpstreamSse(
      response.body,
      request.signal,
      { maxEventBytes: this.http.maxBodyBytes },
      eventMapper(),
    );
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
