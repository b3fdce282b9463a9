import { Injectable } from '@nestjs/common';
import type {
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { UpstreamHttpClient } from '../upstream-http.client';
import { readUpstreamSse } from '../upstream-sse.reader';
import { UpstreamError } from '../../common/errors/upstream.error';
import { buildHeaders, buildRequestBody, mapCompletion, mapStreamEvent } from './openai.mapping';

/** Any provider that speaks OpenAI's chat-completions wire format (OpenAI, vLLM, Groq, ...). */
@Injectable()
export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly provider = 'openai';

  constructor(private readonly http: UpstreamHttpClient) {}

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    const response = await this.send(request, false);
    return mapCompletion(await this.http.readJson(response, request.signal), request);
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamPart>> {
    const response = await this.send(request, true);
    return this.parts(
      readUpstreamSse(response.body, request.signal, {
        maxEventBytes: this.http.maxBodyBytes,
        isFinal: isDone,
      }),
    );
  }

  private async *parts(
    events: AsyncIterable<{ data: string }>,
  ): AsyncGenerator<UpstreamStreamPart> {
    let sawDone = false;
    let sawFinish = false;
    for await (const event of events) {
      if (isDone(event)) {
        sawDone = true;
        break;
      }
      for (const part of mapStreamEvent(event.data)) {
        if (part.type === 'delta' && part.finishReason) sawFinish = true;
        yield part;
      }
    }
    if (!sawDone && !sawFinish)
      throw new UpstreamError('invalid_response', 'stream ended before a finish_reason or [DONE]');
  }

  private send(request: UpstreamChatRequest, stream: boolean) {
    const { deployment } = request;
    return this.http.post({
      url: `${deployment.baseUrl}/chat/completions`,
      headers: buildHeaders(deployment, request.requestId),
      body: JSON.stringify(buildRequestBody(request, stream)),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
    });
  }
}

const isDone = (event: { data: string }) => event.data === '[DONE]';
