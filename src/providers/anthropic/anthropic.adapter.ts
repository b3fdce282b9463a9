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
  AnthropicStreamMapper,
  anthropicErrorFromResponse,
  anthropicHeaders,
  anthropicUrl,
  buildAnthropicRequest,
  mapAnthropicResponse,
} from './anthropic.mapping';

/** Anthropic's Messages API: POST {base_url}/messages, JSON or SSE. */
@Injectable()
export class AnthropicAdapter implements ProviderAdapter {
  readonly provider = 'anthropic';

  constructor(private readonly http: UpstreamHttpClient) {}

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    refuseUnsupported(request.parameters, this.provider);
    const response = await this.send(request, false);
    return mapAnthropicResponse(await this.http.readJson(response, request.signal));
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamPart>> {
    refuseUnsupported(request.parameters, this.provider);
    const response = await this.send(request, true);
    return mapEvents(
      readUpstreamSse(response.body, request.signal, {
        maxEventBytes: this.http.maxBodyBytes,
        isFinal: isMessageStop,
      }),
    );
  }

  private send(request: UpstreamChatRequest, stream: boolean) {
    const { deployment } = request;
    return this.http.post({
      url: anthropicUrl(deployment),
      headers: anthropicHeaders(deployment, request.requestId),
      body: JSON.stringify(
        buildAnthropicRequest(request, { stream, defaultMaxTokens: deployment.defaultMaxTokens }),
      ),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
      errorFromResponse: anthropicErrorFromResponse,
    });
  }
}

const isMessageStop = (event: UpstreamSseEvent) => event.event === 'message_stop';

async function* mapEvents(
  events: AsyncIterable<UpstreamSseEvent>,
): AsyncGenerator<UpstreamStreamPart> {
  const mapper = new AnthropicStreamMapper();
  for await (const event of events) yield* mapper.map(event);
  if (!mapper.complete)
    throw new UpstreamError('invalid_response', 'stream ended before message_stop');
}
