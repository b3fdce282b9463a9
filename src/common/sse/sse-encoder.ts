/**
 * How one wire format writes its events as server-sent events. One encoder per stream: it may
 * keep state across batches (an id, block indices, a sequence number).
 */
export interface SseEncoder<Event, End> {
  /** The frames of one batch of events, in one string; '' writes nothing. */
  encode(batch: readonly Event[]): string;
  /**
   * The frames that close a stream which ran to its end (chat completions: `data: [DONE]`), from
   * the source's return value. May wait, e.g. for a write that must precede the last event.
   */
  end(summary: End): string | Promise<string>;
  /** The frame that ends a stream failing after its first event, in the format's error shape. */
  error(error: unknown): string;
  /** Written while the source is silent: a comment, or the format's own ping event. */
  readonly heartbeat: string;
}

/**
 * What a streaming handler returns: its events, in batches that are ready together (one upstream
 * read), and the encoder that writes them. The SSE interceptor turns it into an SseStream.
 */
export class EventStream<Event = unknown, End = unknown> {
  constructor(
    readonly source: AsyncIterator<readonly Event[], End>,
    readonly encoder: SseEncoder<Event, End>,
  ) {}
}
