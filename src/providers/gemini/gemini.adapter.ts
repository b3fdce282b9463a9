import { Injectable } from '@nestjs/common';
import { refuseUnsupported } from '../chat-input';
import type {
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { UpstreamHttpClient } from '../upstream-http.client';
import { readUpstreamSse, UpstreamSseEvent } from '../upstream-sse.reader';
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
    const response = await this.send(request, false);
    return mapGeminiResponse(await this.http.readJson(response, request.signal));
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamPart>> {
    refuseUnsupported(request.parameters, this.provider);
    const response = await this.send(request, true);
    return mapEvents(
      readUpstreamSse(response.body, request.signal, { maxEventBytes: this.http.maxBodyBytes }),
    );
  }

  private send(request: UpstreamChatRequest, stream: boolean) {
    const { deployment } = request;
    return this.http.post({
      url: geminiUrl(deployment, stream),
      headers: geminiHeaders(deployment, request.requestId),
      body: JSON.stringify(buildGeminiRequest(request)),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
      errorFromResponse: geminiErrorFromResponse,
    });
  }
}

async function* mapEvents(
  events: AsyncIterable<UpstreamSseEvent>,
): AsyncGenerator<UpstreamStreamPart> {
  const mapper = new GeminiStreamMapper();
  let finished = false;
  for await (const event of events) {
    for (const part of mapper.map(event.data)) {
      if (part.type === 'delta' && part.finishReason) finished = true;
      yield part;
    }
  }
  // Gemini has no end marker: the body ends after the chunk with a finishReason.
  if (!finished) throw new UpstreamError('invalid_response', 'stream ended before a finishReason');
  yield* mapper.finish();
}
