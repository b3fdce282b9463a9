import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type UpstreamHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

/**
 * A real HTTP server speaking OpenAI's chat-completions wire format, standing in for a provider.
 * Each test scripts its answers; the server records what the gateway sent and notices when the
 * gateway closes a connection.
 */
export class FakeOpenAiUpstream {
  readonly requests: RecordedRequest[] = [];
  /** Resolvers waiting for the next request whose connection the gateway closes early. */
  private closeWaiters: Array<() => void> = [];
  abortedRequests = 0;
  private handlers: UpstreamHandler[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeOpenAiUpstream> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const upstream = new FakeOpenAiUpstream(server, `http://127.0.0.1:${port}/v1`);
    server.on('connection', (socket) => {
      upstream.sockets.add(socket);
      socket.on('close', () => upstream.sockets.delete(socket));
    });
    server.on('request', (request, response) => void upstream.handle(request, response));
    return upstream;
  }

  /** Answers the next request with `handler` (queued in order); later ones get the default. */
  next(...handlers: UpstreamHandler[]): this {
    this.handlers.push(...handlers);
    return this;
  }

  /** Drops the queued handlers no request used (e.g. those of requests the gateway refused). */
  clearQueue(): void {
    this.handlers.length = 0;
  }

  /** Resolves when a request's connection is closed by the gateway before the answer ended. */
  waitForAbort(): Promise<void> {
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  /** TCP connections from the gateway that are open now (idle keep-alive ones included). */
  get openConnections(): number {
    return this.sockets.size;
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
    const request: RecordedRequest = {
      path: raw.url ?? '',
      headers: raw.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    this.requests.push(request);
    response.on('close', () => {
      if (!response.writableFinished) {
        this.abortedRequests++;
        this.closeWaiters.splice(0).forEach((resolve) => resolve());
      }
    });
    const handler = this.handlers.shift() ?? completion('Hello from the fake upstream.');
    await handler(request, response, raw);
  }
}

/** OpenAI's usage object; extra fields (prompt_tokens_details, ...) are sent as given. */
export interface OpenAiWireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export function completion(
  content: string,
  usage: OpenAiWireUsage = { prompt_tokens: 9, completion_tokens: 12 },
  finishReason = 'stop',
): UpstreamHandler {
  return (request, response) => {
    json(response, 200, {
      id: 'chatcmpl-upstream123',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: request.body?.model,
      system_fingerprint: 'fp_test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  };
}

export function errorResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): UpstreamHandler {
  return (_request, response) => json(response, status, body, headers);
}

/** Accepts the request and never answers. */
export function hang(): UpstreamHandler {
  return () => undefined;
}

export interface StreamScript {
  /** Text pieces, one content chunk each. */
  pieces: string[];
  delayMs?: number;
  /** Delay before the first byte of the body. */
  firstByteDelayMs?: number;
  usage?: OpenAiWireUsage;
  /** Split every event's bytes into single-byte writes: multi-byte characters arrive split. */
  splitBytes?: boolean;
  /** After this many pieces, write an OpenAI error event instead of continuing. */
  errorAfter?: number;
  /** After this many pieces, destroy the connection. */
  cutAfter?: number;
}

/** A streamed answer exactly as OpenAI sends it: role chunk, content chunks, finish, usage, [DONE]. */
export function streamAnswer(script: StreamScript): UpstreamHandler {
  return async (request, response) => {
    const base = {
      id: 'chatcmpl-upstreamstream',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: request.body?.model,
    };
    const wantsUsage = request.body?.stream_options?.include_usage === true;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const write = async (payload: unknown) => {
      const frame = Buffer.from(
        `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`,
      );
      if (!script.splitBytes) return void response.write(frame);
      for (const byte of frame) {
        response.write(Buffer.from([byte]));
        await sleep(0);
      }
    };
    await sleep(script.firstByteDelayMs ?? 0);
    await write({
      ...base,
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: null,
        },
      ],
      usage: null,
    });
    for (const [index, piece] of script.pieces.entries()) {
      // Sleeping first also lets Node flush the corked writes: a cut in the same tick would
      // discard them, and the gateway would see the connection fail before any token.
      if (index > 0) await sleep(script.delayMs ?? 0);
      if (response.destroyed) return;
      if (script.errorAfter === index) {
        await write({
          error: {
            message: 'The server had an error while processing your request.',
            type: 'server_error',
          },
        });
        return void response.end();
      }
      if (script.cutAfter === index) return void response.socket?.destroy();
      await write({
        ...base,
        choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
        usage: null,
      });
    }
    await write({
      ...base,
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
      usage: null,
    });
    if (wantsUsage) {
      const usage = script.usage ?? { prompt_tokens: 7, completion_tokens: script.pieces.length };
      await write({
        ...base,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    await write('[DONE]');
    response.end();
  };
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
