import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { bodyText, listen, type LoopbackServer } from '../http/loopback-server.fixture';
import type { SseEncoder } from './sse-encoder';
import { dataFrame, HEARTBEAT_COMMENT } from './sse-frames';
import type { SseStream, SseStreamOptions } from './sse-stream';

// Shared by the SseStream specs: a source, an encoder, and a real server to write streams to.

export const DONE_FRAME = 'data: [DONE]\n\n';
export const HEARTBEAT_FRAME = HEARTBEAT_COMMENT;

/** A format that writes each event as one `data:` line and closes with [DONE], as chat completions do. */
export const encoder: SseEncoder<unknown, unknown> = {
  heartbeat: HEARTBEAT_COMMENT,
  encode: (batch) => batch.map(dataFrame).join(''),
  end: () => DONE_FRAME,
  error: (error) => dataFrame({ error: { message: (error as Error).message } }),
};

/**
 * A source that yields `values` one per batch, then fails with `error` if given; records whether
 * it was closed.
 */
export function source(values: unknown[], error?: unknown) {
  const state = { closed: false };
  async function* generate() {
    try {
      for (const value of values) yield [value];
      if (error) throw error;
    } finally {
      state.closed = true;
    }
  }
  return { iterator: generate(), state };
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const OPTIONS: SseStreamOptions = { heartbeatMs: 0, stallTimeoutMs: 0 };

/** What has arrived of a response's body so far, as text. */
export function received(response: IncomingMessage): { readonly text: string } {
  const body = { text: '' };
  response.setEncoding('utf8');
  response.on('data', (piece: string) => (body.text += piece));
  return body;
}

/**
 * A real HTTP server whose every response is the stream `next()` hands out, and a client that
 * opens one request to it: the stream writes to a real ServerResponse over a real socket.
 */
export class StreamServer {
  private constructor(
    private readonly loopback: LoopbackServer,
    private readonly streams: SseStream[],
  ) {}

  static async start(): Promise<StreamServer> {
    const streams: SseStream[] = [];
    const loopback = await listen((_request, response) => streams.shift()!.writeTo(response));
    return new StreamServer(loopback, streams);
  }

  /** Opens a request answered by `stream`; resolves with the response once its head arrives. */
  async open(stream: SseStream): Promise<IncomingMessage> {
    this.streams.push(stream);
    const { port } = this.loopback;
    const sent = request({ host: '127.0.0.1', port, method: 'POST', agent: false });
    // A response the server cuts short fails its request too; the tests look at the response.
    sent.on('error', () => undefined);
    sent.end();
    const [response] = (await once(sent, 'response')) as [IncomingMessage];
    return response;
  }

  /** The whole body of a stream's response, as text. */
  async body(stream: SseStream): Promise<string> {
    return bodyText(await this.open(stream));
  }

  stop(): Promise<void> {
    return this.loopback.close();
  }
}
