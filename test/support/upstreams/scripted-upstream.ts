import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep } from '../eventually';

export { sleep };

// The provider-neutral part of a fake upstream: a real HTTP server on a free port that records
// what the gateway sent, answers from a queue of scripted handlers, and notices early closes.
// The provider files (openai-upstream.ts, anthropic-upstream.ts, gemini-upstream.ts) add their
// wire format on top.

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type UpstreamHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export interface ScriptedUpstreamOptions {
  /** The `provider` of GATEWAY_CONFIG this fake stands in for. */
  provider: string;
  /** An API key the fake accepts. */
  apiKey: string;
  /** Checked before any scripted handler: returns a handler (the provider's own refusal) or undefined to go on. */
  gate: (request: RecordedRequest) => UpstreamHandler | undefined;
  /** Used once the queue is empty. */
  fallback: UpstreamHandler;
}

export class ScriptedUpstream {
  readonly requests: RecordedRequest[] = [];
  abortedRequests = 0;
  private closeWaiters: Array<() => void> = [];
  private handlers: UpstreamHandler[] = [];
  private readonly sockets = new Set<Socket>();

  protected constructor(
    private readonly server: Server,
    /** Origin only, e.g. `http://127.0.0.1:41234`; subclasses add the version segment. */
    readonly origin: string,
    private readonly options: ScriptedUpstreamOptions,
  ) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (request, response) => void this.handle(request, response));
  }

  protected static async listen(): Promise<{ server: Server; origin: string }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { server, origin: `http://127.0.0.1:${port}` };
  }

  /** The `base_url` to configure: the origin, with the provider's version segment if it has one. */
  get url(): string {
    return this.origin;
  }

  /**
   * A deployment of GATEWAY_CONFIG's `models:` served by this fake (its provider, URL and a key it
   * accepts), with `fields` added or replacing those.
   */
  deployment(model: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      provider: this.options.provider,
      base_url: this.url,
      api_key: this.options.apiKey,
      model,
      ...fields,
    };
  }

  /** Answers the next requests with these handlers, in order; later ones get the fallback. */
  next(...handlers: UpstreamHandler[]): this {
    this.handlers.push(...handlers);
    return this;
  }

  /** Drops the queued handlers no request used (e.g. those of requests the gateway refused). */
  clearQueue(): void {
    this.handlers.length = 0;
  }

  /** TCP connections from the gateway that are open now (idle keep-alive ones included). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Resolves when the gateway closes a request's connection before the answer ended. */
  waitForAbort(): Promise<void> {
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  get lastRequest(): RecordedRequest {
    return this.requests[this.requests.length - 1];
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(raw: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Kept as text: the gate answers a malformed body the way the provider would.
    }
    const request: RecordedRequest = {
      method: raw.method ?? 'GET',
      path: raw.url ?? '',
      headers: raw.headers,
      body,
    };
    this.requests.push(request);
    response.on('close', () => {
      if (!response.writableFinished) {
        this.abortedRequests++;
        this.closeWaiters.splice(0).forEach((resolve) => resolve());
      }
    });
    const handler = this.options.gate(request) ?? this.handlers.shift() ?? this.options.fallback;
    await handler(request, response, raw);
  }
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/**
 * Resolves once a response that refused a write takes more, or is closed; the listener of the
 * other event is removed, so a long flood does not pile them up.
 */
export function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** Accepts the request and never answers. */
export function hang(): UpstreamHandler {
  return () => undefined;
}

/**
 * How a stream's bytes are written: `whole` one write per event; `awkward` cuts inside the
 * `event:`/`data:` field names, between CR and LF, and inside every multi-byte UTF-8 character;
 * `bytes` one byte per write.
 */
export type Chunking = 'whole' | 'awkward' | 'bytes';

/** How a scripted stream is written and cut short; each provider's script adds its content. */
export interface StreamFaults {
  /** Streams only: how each frame's bytes are written. */
  chunking?: Chunking;
  delayMs?: number;
  firstByteDelayMs?: number;
  /** After this many text pieces, send the provider's own error event and end. */
  errorAfter?: number;
  /** After this many text pieces, destroy the connection. */
  cutAfter?: number;
}

export function awkwardPieces(frame: Buffer): Buffer[] {
  const cuts = new Set<number>();
  for (let i = 0; i < frame.length; i++) {
    const atLineStart = i === 0 || frame[i - 1] === 0x0a;
    if (
      atLineStart &&
      (frame.subarray(i, i + 6).toString() === 'event:' ||
        frame.subarray(i, i + 5).toString() === 'data:')
    )
      cuts.add(i + 3);
    if (frame[i] === 0x0d && frame[i + 1] === 0x0a) cuts.add(i + 1);
    // A lead byte (11xxxxxx) starts a multi-byte character: cut right after it.
    if ((frame[i] & 0xc0) === 0xc0) cuts.add(i + 1);
  }
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= start || cut >= frame.length) continue;
    pieces.push(frame.subarray(start, cut));
    start = cut;
  }
  pieces.push(frame.subarray(start));
  return pieces;
}

/** Writes one SSE frame with the chosen chunking; pauses between pieces so they reach the socket apart. */
export async function writeFrame(
  response: ServerResponse,
  frame: string,
  chunking: Chunking,
): Promise<void> {
  const bytes = Buffer.from(frame);
  const pieces =
    chunking === 'whole'
      ? [bytes]
      : chunking === 'bytes'
        ? [...bytes].map((byte) => Buffer.from([byte]))
        : awkwardPieces(bytes);
  for (const [index, piece] of pieces.entries()) {
    if (response.destroyed) return;
    if (index > 0) await sleep(1);
    response.write(piece);
  }
}
