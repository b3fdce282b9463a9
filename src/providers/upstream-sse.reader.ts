import { createParser } from 'eventsource-parser';
import type { Readable } from 'node:stream';
import { toUpstreamError } from './upstream-http.client';
import { UpstreamError } from '../common/errors/upstream.error';

/** One server-sent event of a provider's stream. */
export interface UpstreamSseEvent {
  /** The `event:` line, when the provider sends one (Anthropic does, OpenAI and Gemini do not). */
  event?: string;
  data: string;
}

export interface SseReadOptions {
  /** Largest single event, comments since the previous event included (UPSTREAM_MAX_BODY_BYTES). */
  maxEventBytes: number;
  /**
   * Marks the provider's end-of-stream event (OpenAI's `[DONE]`): the reader stops after it and
   * drains the rest of the body, so the keep-alive connection can be reused.
   */
  isFinal?: (event: UpstreamSseEvent) => boolean;
}

/**
 * Every provider's SSE body goes through here: a streaming UTF-8 decoder and a maintained SSE
 * parser, pulling from the socket only as fast as the consumer asks (backpressure). Leaving the
 * loop early destroys the body, which closes the upstream connection. Transport failures become
 * UpstreamError; a client abort passes through as the signal's reason.
 */
export async function* readUpstreamSse(
  body: Readable & { dump?: () => Promise<void> },
  signal: AbortSignal,
  options: SseReadOptions,
): AsyncGenerator<UpstreamSseEvent> {
  const decoder = new TextDecoder('utf-8');
  const pending: UpstreamSseEvent[] = [];
  // The parser buffers an event until its blank line: one endless event must not fill memory.
  let eventBytes = 0;
  const parser = createParser({
    onEvent: (event) => {
      eventBytes = 0;
      pending.push(event.event ? { event: event.event, data: event.data } : { data: event.data });
    },
  });
  let finished = false;
  let ended = false;
  try {
    for await (const chunk of body) {
      eventBytes += (chunk as Buffer).length;
      if (eventBytes > options.maxEventBytes) {
        throw new UpstreamError(
          'invalid_response',
          `one stream event larger than UPSTREAM_MAX_BODY_BYTES (${options.maxEventBytes} bytes)`,
        );
      }
      parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      while (pending.length > 0) {
        const event = pending.shift()!;
        // Set before the yield: a consumer that stops at the final event still gets the drain.
        if (options.isFinal?.(event)) finished = true;
        yield event;
        if (finished) break;
      }
      if (finished) break;
    }
    ended = true;
  } catch (error) {
    throw toUpstreamError(error, signal);
  } finally {
    if (finished) await body.dump?.().catch(() => undefined);
    else if (!ended) body.destroy();
  }
}
