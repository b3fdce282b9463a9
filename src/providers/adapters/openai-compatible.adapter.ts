import { Injectable } from '@nestjs/common';
import { createParser } from 'eventsource-parser';
import type { Readable } from 'node:stream';
import type {
  ProviderAdapter,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { toUpstreamError, UpstreamHttpClient } from '../upstream-http.client';
import { UpstreamError } from '../upstream.error';
import { buildHeaders, buildRequestBody, mapCompletion, mapStreamEvent } from './openai-compatible.mapping';

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
    return readEventStream(response.body, request.signal, this.http.maxBodyBytes);
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

/**
 * Parses an upstream SSE body with a streaming UTF-8 decoder and a maintained SSE parser, pulling
 * from the socket only as fast as the consumer asks (backpressure). Leaving the loop early
 * destroys the body, which closes the upstream connection.
 */
async function* readEventStream(
  body: Readable & { dump?: () => Promise<void> },
  signal: AbortSignal,
  maxEventBytes: number,
): AsyncGenerator<UpstreamStreamPart> {
  const decoder = new TextDecoder('utf-8');
  const pending: string[] = [];
  // The parser buffers an event until its blank line: one endless event must not fill memory.
  // Counted are the bytes since the last complete event (comments between events included).
  let eventBytes = 0;
  const parser = createParser({
    onEvent: (event) => {
      eventBytes = 0;
      pending.push(event.data);
    },
  });
  let sawDone = false;
  let sawFinish = false;
  try {
    for await (const chunk of body) {
      eventBytes += (chunk as Buffer).length;
      if (eventBytes > maxEventBytes) {
        throw new UpstreamError('invalid_response', `one stream event larger than UPSTREAM_MAX_BODY_BYTES (${maxEventBytes} bytes)`);
      }
      parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      while (pending.length > 0) {
        const data = pending.shift()!;
        if (data === '[DONE]') {
          sawDone = true;
          break;
        }
        for (const part of mapStreamEvent(data)) {
          if (part.type === 'delta' && part.finishReason) sawFinish = true;
          yield part;
        }
      }
      if (sawDone) break;
    }
  } catch (error) {
    throw toUpstreamError(error, signal);
  } finally {
    if (sawDone) await body.dump?.().catch(() => undefined);
    else body.destroy();
  }
  if (!sawDone && !sawFinish) throw new UpstreamError('invalid_response', 'stream ended before a finish_reason or [DONE]');
}
