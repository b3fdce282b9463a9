import type { ServerResponse } from 'node:http';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import type { SseEncoder } from './sse-encoder';

export interface SseStreamOptions {
  /** A comment frame after this long without a chunk while the client reads; 0: none. */
  heartbeatMs: number;
  /** A socket with no traffic for this long is closed, which closes the source; 0: never. */
  stallTimeoutMs: number;
  /** Hears a failure after the first event (it is sent as an error frame, not thrown). */
  onError?: (error: unknown) => void;
}

/**
 * A stream of event batches, written to a response as server-sent events in the frames of its
 * wire format's encoder (SseEncoder). The HTTP adapter hands it the response, and it writes
 * straight to it: one `source.next()` per write, and the next pull only once the response takes
 * more (backpressure: write() said so, or 'drain').
 *
 * Each batch (the events of one upstream read) becomes its frames in one write; frames written
 * in one event-loop turn leave in one socket write (cork until the next turn). A batch that
 * encodes to nothing is skipped. When the source is done, the encoder's closing frames end the
 * response. An error after the first event becomes the encoder's error frame, and the response
 * ends without the closing frames, so a truncated answer can never look complete; a client
 * disconnect ends it silently.
 *
 * Heartbeats come from one timer per stream, restarted when a pull starts: if it fires while the
 * pull still waits on the source and the client is reading, a heartbeat frame goes out.
 *
 * When the client leaves early the source is closed (return()), and `closed` settles only after
 * that has finished, the source's own `finally` included.
 */
export class SseStream {
  /** Settles once the source is over: ended, failed, or closed after the client left. */
  readonly closed: Promise<void>;
  private settleClosed!: () => void;
  private response?: ServerResponse;
  /**
   * A source.next() is in flight. When none is and the source is not over, the last write
   * filled the response's buffer and the next pull waits for 'drain'.
   */
  private pulling = false;
  /** The source has nothing more to give (done, failed) or is being closed. */
  private sourceOver = false;
  private corked = false;
  private heartbeat?: NodeJS.Timeout;
  // Bound once, not per event.
  private readonly onStep = (step: IteratorResult<readonly unknown[], unknown>) => this.step(step);
  private readonly onFailure = (error: unknown) => this.fail(error);
  private readonly onDrain = () => {
    // While pulling, a heartbeat filled the buffer and the next beat found it full: beats resume
    // from here. Otherwise a batch did, and the source is pulled again (not once it is over).
    if (this.pulling) this.heartbeat?.refresh();
    else this.pull();
  };
  private readonly onClose = () => this.close();
  private readonly onStall = () => this.response?.destroy();
  private readonly uncork = () => {
    this.corked = false;
    this.response?.uncork();
  };

  constructor(
    private readonly source: AsyncIterator<readonly unknown[], unknown>,
    private readonly encoder: SseEncoder<unknown, unknown>,
    private readonly options: SseStreamOptions,
  ) {
    this.closed = new Promise((resolve) => (this.settleClosed = resolve));
  }

  /** Sets the event-stream headers and starts writing; called once, by the HTTP adapter. */
  writeTo(response: ServerResponse): void {
    if (this.response) throw new Error('An SseStream is written to one response only');
    this.response = response;
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('X-Accel-Buffering', 'no');
    response.once('close', this.onClose);
    // The client may have left while the handler ran: 'close' has been emitted already then.
    if (response.destroyed || response.req.socket.destroyed) return this.close();
    response.on('drain', this.onDrain);
    this.disconnectStalledClient(response);
    if (this.options.heartbeatMs > 0) {
      this.heartbeat = setTimeout(() => this.beat(), this.options.heartbeatMs);
    }
    this.pull();
  }

  private pull(): void {
    if (this.sourceOver) return;
    this.pulling = true;
    this.heartbeat?.refresh();
    try {
      this.source.next().then(this.onStep, this.onFailure);
    } catch (error) {
      this.fail(error);
    }
  }

  private step(step: IteratorResult<readonly unknown[], unknown>): void {
    this.pulling = false;
    if (this.sourceOver) return; // the client left; close() is closing the source
    if (step.done) {
      this.sourceOver = true;
      return this.finish(step.value);
    }
    let frames: string;
    try {
      frames = this.encoder.encode(step.value);
    } catch (error) {
      return this.abandon(error);
    }
    if (frames === '') return this.pull();
    if (this.write(frames)) this.pull();
  }

  /** The source ran to its end: the encoder's closing frames end the response. */
  private finish(summary: unknown): void {
    let closing: string | Promise<string>;
    try {
      closing = this.encoder.end(summary);
    } catch (error) {
      return this.failAfterEnd(error);
    }
    if (typeof closing === 'string') return this.end(closing);
    closing.then(
      (frames) => this.end(frames),
      (error: unknown) => this.failAfterEnd(error),
    );
  }

  private fail(error: unknown): void {
    this.pulling = false;
    if (this.sourceOver) return;
    this.sourceOver = true;
    if (error instanceof ClientDisconnectedError) return this.end();
    this.options.onError?.(error);
    this.end(this.encoder.error(error));
  }

  private failAfterEnd(error: unknown): void {
    this.options.onError?.(error);
    this.end(this.encoder.error(error));
  }

  /** The encoder failed on a batch: the stream ends with an error and the source is closed. */
  private abandon(error: unknown): void {
    this.sourceOver = true;
    this.options.onError?.(error);
    this.end(this.encoder.error(error));
    this.source.return?.()?.catch(() => undefined);
  }

  private write(frames: string): boolean {
    const response = this.response!;
    if (!this.corked) {
      // Frames of one turn (several upstream reads, or the headers and the first chunk) leave
      // in one socket write; per-frame writes were a stream's largest CPU cost.
      this.corked = true;
      response.cork();
      setImmediate(this.uncork);
    }
    return response.write(frames);
  }

  /** The source is over: the last frame goes out (end() flushes a corked response). */
  private end(frame?: string): void {
    this.stopHeartbeat();
    const response = this.response!;
    if (!response.destroyed) response.end(frame);
    this.settleClosed();
  }

  private beat(): void {
    const response = this.response!;
    if (!this.pulling || this.sourceOver || response.writableNeedDrain) return;
    this.write(this.encoder.heartbeat);
    this.heartbeat?.refresh();
  }

  /** The response closed: after its end, or because the client left (the source is closed). */
  private close(): void {
    const response = this.response!;
    this.stopHeartbeat();
    this.stopStallWatch(response);
    if (this.sourceOver) return;
    this.sourceOver = true;
    // return() on a running generator waits for its finally (upstream closed, usage recorded);
    // a pull in flight settles first.
    const closing = this.source.return?.();
    if (!closing) return this.settleClosed();
    closing.then(this.settleClosed, this.settleClosed);
  }

  /**
   * Backpressure pauses the upstream read while the client does not read, and undici suspends its
   * body timeout while paused: a client that stops reading would hold its upstream connection
   * for ever. A socket with no traffic at all for the stall timeout (heartbeats count as traffic)
   * is closed, which closes the source.
   */
  private disconnectStalledClient(response: ServerResponse): void {
    const socket = response.socket;
    if (!socket || !(this.options.stallTimeoutMs > 0)) return;
    socket.setTimeout(this.options.stallTimeoutMs, this.onStall);
  }

  /**
   * The listener goes, and the timeout with it while it is still ours. After a finished response
   * Node has usually put its keep-alive timeout on the idle connection already, which must stay
   * (cleared, the idle connection would stay open for ever; Node clears it itself when the next
   * request arrives). When it has not, as when a pipelined request waits on the same
   * connection, the stall timeout must not cut that request off later.
   */
  private stopStallWatch(response: ServerResponse): void {
    const stallMs = this.options.stallTimeoutMs;
    if (!(stallMs > 0)) return;
    const socket = response.req.socket;
    socket.off('timeout', this.onStall);
    if (!socket.destroyed && socket.timeout === stallMs) socket.setTimeout(0);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
  }
}
