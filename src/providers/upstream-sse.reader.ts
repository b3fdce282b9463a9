import { createParser } from 'eventsource-parser';
import { finished } from 'node:stream';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { toUpstreamError } from './upstream-failure';
import { UpstreamError } from '../common/errors/upstream.error';
import type { UpstreamSignal } from './attempt-signal';

/** One server-sent event of a provider's stream. */
export interface UpstreamSseEvent {
  /** The `event:` line, when the provider sends one (Anthropic does, OpenAI and Gemini do not). */
  event?: string;
  data: string;
}

export interface SseReadOptions {
  /** Largest single event, comments since the previous event included (UPSTREAM_MAX_BODY_BYTES). */
  maxEventBytes: number;
}

/**
 * How one provider turns its SSE events into what the reader yields (the adapters: stream parts).
 * One mapper per stream; it may keep state across events.
 */
export interface SseEventMapper<T> {
  /** What one event carries, possibly nothing. Throws (an UpstreamError) on an error event. */
  map(event: UpstreamSseEvent): readonly T[];
  /**
   * Marks the provider's end-of-stream event (OpenAI's `[DONE]`), after it was mapped: the reader
   * stops there and drains the rest of the body, so the keep-alive connection can be reused.
   */
  isFinal?(event: UpstreamSseEvent): boolean;
  /**
   * Called once the events are over (the final event or the end of the body): what is still to
   * come, or throws when the stream was cut short.
   */
  end?(): readonly T[];
}

type UpstreamBody = Readable & { dump?: () => Promise<void> };

/**
 * Every provider's SSE body goes through here: a streaming UTF-8 decoder (Node's StringDecoder,
 * which keeps a character split between reads for the next, and costs less than TextDecoder's
 * streaming mode), a maintained SSE parser and the provider's mapper, in one async
 * generator that yields, per socket read, everything the read's events carried (one array, never
 * empty). It pulls from the socket only as fast as the consumer asks (backpressure), reading the
 * body with read() and waiting only when nothing is buffered, rather than through the body's own
 * async iterator: one generator step per read rather than several per event.
 *
 * Leaving the loop early destroys the body, which closes the upstream connection. Transport
 * failures become UpstreamError; a client abort passes through as the signal's reason. What the
 * mapper throws passes through as it is, after what the events before it carried.
 */
export async function* readUpstreamSse<T>(
  body: UpstreamBody,
  signal: UpstreamSignal,
  options: SseReadOptions,
  mapper: SseEventMapper<T>,
): AsyncGenerator<readonly T[]> {
  const decoder = new StringDecoder('utf8');
  // A byte-order mark opening the stream is dropped, as the SSE spec's UTF-8 decode does (and
  // TextDecoder did); eventsource-parser looks for it as undecoded bytes, which it never sees.
  let opening = true;
  const pending: UpstreamSseEvent[] = [];
  // The parser buffers an event until its blank line: one endless event must not fill memory.
  let eventBytes = 0;
  const parser = createParser({
    onEvent: (event) => {
      eventBytes = 0;
      // The parser's own event object: mappers read only `event` and `data`.
      pending.push(event);
    },
  });
  const waiter = new BodyWaiter(body);
  let final = false;
  let ended = false;
  try {
    while (!final) {
      const chunk = body.destroyed ? null : (body.read() as Buffer | null);
      if (chunk === null) {
        if (waiter.failure !== undefined) throw toUpstreamError(waiter.failure, signal);
        if (waiter.ended) break;
        await waiter.wait();
        continue;
      }
      eventBytes += chunk.length;
      if (eventBytes > options.maxEventBytes) {
        throw toUpstreamError(
          new UpstreamError(
            'invalid_response',
            `one stream event larger than UPSTREAM_MAX_BODY_BYTES (${options.maxEventBytes} bytes)`,
          ),
          signal,
        );
      }
      let text = decoder.write(chunk);
      if (opening && text.length > 0) {
        opening = false;
        if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
      }
      parser.feed(text);
      if (pending.length === 0) continue;
      const batch: T[] = [];
      let failed = false;
      let failure: unknown;
      try {
        for (let i = 0; i < pending.length && !final; i++) {
          // Set before the yield: a consumer that stops at the final event still gets the drain.
          final = mapper.isFinal?.(pending[i]) ?? false;
          for (const item of mapper.map(pending[i])) batch.push(item);
        }
      } catch (error) {
        failed = true;
        failure = error;
      }
      pending.length = 0;
      if (batch.length > 0) yield batch;
      if (failed) throw failure;
    }
    ended = true;
    const rest = mapper.end?.();
    if (rest && rest.length > 0) yield rest;
  } finally {
    waiter.dispose();
    if (final) await body.dump?.().catch(() => undefined);
    else if (!ended) body.destroy();
  }
}

const BYTE_ORDER_MARK = 0xfeff;

/**
 * Tells when a body that read() found empty has more, has ended or has failed. One 'readable'
 * listener and one finished() per body, and a Promise only for a wait that happens.
 */
class BodyWaiter {
  ended = false;
  failure: unknown = undefined;
  private wake?: () => void;
  private readonly onReadable = () => {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  };
  constructor(private readonly body: Readable) {
    body.on('readable', this.onReadable);
    // Left attached when done: it also absorbs the 'error' that undici emits for a body
    // destroyed before its end (the consumer left early), as the body's own iterator did.
    finished(body, { writable: false }, (error) => {
      if (error) this.failure = error;
      else this.ended = true;
      this.onReadable();
    });
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  dispose(): void {
    this.body.off('readable', this.onReadable);
  }
}
