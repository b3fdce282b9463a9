import { Injectable } from '@nestjs/common';
import { refuseUnsupported } from '../chat-input';
import type {
  NativeAdapter,
  NativeAnswer,
  NativeUpstreamRequest,
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamBatch,
} from '../provider-adapter.interface';
import { UpstreamHttpClient, type UpstreamHttpRequest } from '../upstream-http.client';
import type { SseEventMapper, UpstreamSseEvent } from '../upstream-sse.reader';
import { UpstreamError } from '../../common/errors/upstream.error';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import {
  AnthropicStreamMapper,
  anthropicErrorFromResponse,
  anthropicHeaders,
  anthropicUrl,
  buildAnthropicRequest,
  mapAnthropicResponse,
} from './anthropic.mapping';
import {
  AnthropicNativeStreamMapper,
  countTokensOf,
  countTokensUrl,
  nativeAnswerUsage,
  nativeBody,
  nativeHeaders,
} from './anthropic.native';

/** Anthropic's Messages API: POST {base_url}/messages, JSON or SSE. */
@Injectable()
export class AnthropicAdapter implements ProviderAdapter {
  readonly provider = 'anthropic';

  constructor(private readonly http: UpstreamHttpClient) {}

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    refuseUnsupported(request.parameters, this.provider);
    return mapAnthropicResponse(await this.http.postJson(this.requestOf(request, false)));
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>> {
    refuseUnsupported(request.parameters, this.provider);
    return this.http.postSse(
      this.requestOf(request, true),
      untilMessageStop(new AnthropicStreamMapper()),
    );
  }

  /**
   * Pass-through for Messages API clients (/v1/messages): their body with the deployment's
   * model, their events as they came, and Anthropic's own token count.
   */
  readonly native: NativeAdapter = {
    complete: async (request): Promise<NativeAnswer> => {
      const body = await this.http.postJson(
        this.nativeRequestOf(request, anthropicUrl(request.deployment)),
      );
      return { body, usage: nativeAnswerUsage(body) };
    },
    stream: (request) =>
      this.http.postSse(
        this.nativeRequestOf(request, anthropicUrl(request.deployment)),
        untilMessageStop(new AnthropicNativeStreamMapper()),
      ),
    countTokens: async (request) =>
      countTokensOf(
        await this.http.postJson(this.nativeRequestOf(request, countTokensUrl(request.deployment))),
      ),
  };

  /** Anthropic requires `max_tokens`: the deployment's `default_max_tokens` fills it in. */
  impliedMaxTokens(deployment: DeploymentConfig): number {
    return deployment.defaultMaxTokens;
  }

  private requestOf(request: UpstreamChatRequest, stream: boolean): UpstreamHttpRequest {
    const { deployment } = request;
    return {
      url: anthropicUrl(deployment),
      headers: anthropicHeaders(deployment, request.requestId),
      body: JSON.stringify(
        buildAnthropicRequest(request, {
          stream,
          defaultMaxTokens: this.impliedMaxTokens(deployment),
        }),
      ),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
      errorFromResponse: anthropicErrorFromResponse,
    };
  }

  private nativeRequestOf(request: NativeUpstreamRequest, url: string): UpstreamHttpRequest {
    const { deployment } = request;
    return {
      url,
      headers: nativeHeaders(deployment, request.requestId, request.headers),
      body: nativeBody(request.body, deployment),
      timeoutMs: deployment.timeoutMs,
      signal: request.signal,
      deployment,
      errorFromResponse: anthropicErrorFromResponse,
    };
  }
}

/**
 * Anthropic's events through `mapper` (to stream parts, or relayed as they came for a
 * pass-through); the stream ends at message_stop, and a body that ends before it is a failure.
 */
function untilMessageStop<T>(mapper: {
  map(event: UpstreamSseEvent): T[];
  readonly complete: boolean;
}): SseEventMapper<T> {
  return {
    map: (event) => mapper.map(event),
    isFinal: (event) => event.event === 'message_stop',
    end: () => {
      if (!mapper.complete)
        throw new UpstreamError('invalid_response', 'stream ended before message_stop');
      return [];
    },
  };
}
