import { drainOrClose, json, ScriptedUpstream, sleep, UpstreamHandler } from './scripted-upstream';

export { drainOrClose, hang, sleep } from './scripted-upstream';
export type { RecordedRequest, UpstreamHandler } from './scripted-upstream';

/**
 * A real HTTP server speaking OpenAI's chat-completions wire format, standing in for a provider.
 * Each test scripts its answers (scripted-upstream.ts records what the gateway sent and notices
 * when it closes a connection); OpenAI refuses nothing up front, so there is no gate.
 */
export class FakeOpenAiUpstream extends ScriptedUpstream {
  /** The `base_url` to configure: includes the version segment, as for the real API. */
  override get url(): string {
    return `${this.origin}/v1`;
  }

  static async start(): Promise<FakeOpenAiUpstream> {
    const { server, origin } = await ScriptedUpstream.listen();
    return new FakeOpenAiUpstream(server, origin, {
      provider: 'openai',
      apiKey: 'sk-upstream',
      gate: () => undefined,
      fallback: completion('Hello from the fake upstream.'),
    });
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

/**
 * OpenAI's embeddings answer (float vectors), its items in reverse order to show the gateway
 * orders them by `index`: the vector of input i is `[i, its length or token count, 0.5]`.
 */
export function embeddingsAnswer(promptTokens: number): UpstreamHandler {
  return (request, response) => {
    const inputs: Array<string | number[]> =
      typeof request.body.input === 'string' || typeof request.body.input[0] === 'number'
        ? [request.body.input]
        : request.body.input;
    const data = inputs.map((input, index) => ({
      object: 'embedding',
      index,
      embedding: [index, input.length, 0.5],
    }));
    json(response, 200, {
      object: 'list',
      data: data.reverse(),
      model: request.body.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
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

export interface OpenAiToolCallScript {
  id: string;
  name: string;
  /** The arguments JSON text, as the model wrote it. */
  arguments: string;
}

/**
 * An answer that calls tools, JSON or streamed as OpenAI does (text, then each call's id and
 * name, its arguments in three slices, finish_reason tool_calls, the usage chunk).
 */
export function toolCallAnswer(
  calls: OpenAiToolCallScript[],
  text: string | null = null,
  usage: OpenAiWireUsage = { prompt_tokens: 30, completion_tokens: 15 },
): UpstreamHandler {
  return (request, response) => {
    const toolCalls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const base = {
      id: 'chatcmpl-upstreamtools',
      created: 1_700_000_000,
      model: request.body?.model,
    };
    const total = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    if (request.body?.stream !== true) {
      return json(response, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, tool_calls: toolCalls, refusal: null },
            logprobs: null,
            finish_reason: 'tool_calls',
          },
        ],
        usage: total,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], usage: null })}\n\n`;
    let body = chunk({ role: 'assistant', content: text ?? '' });
    calls.forEach((call, index) => {
      body += chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      });
      const third = Math.ceil(call.arguments.length / 3);
      for (const slice of [0, 1, 2].map((n) => call.arguments.slice(n * third, (n + 1) * third)))
        body += chunk({ tool_calls: [{ index, function: { arguments: slice } }] });
    });
    body += chunk({}, 'tool_calls');
    body += `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: total })}\n\n`;
    response.end(`${body}data: [DONE]\n\n`);
  };
}

export interface FloodProgress {
  /** Bytes handed to the upstream socket so far. */
  written: number;
  /** The last write was refused and no 'drain' has come since. */
  blocked: boolean;
  finished: boolean;
}

/**
 * An upstream that streams `total` bytes of 64 KiB content events as fast as the gateway takes
 * them (by default until the gateway closes the connection), and says how far it came.
 */
export function floodAnswer(total = Infinity): {
  handler: UpstreamHandler;
  progress: FloodProgress;
} {
  const progress: FloodProgress = { written: 0, blocked: false, finished: false };
  const handler: UpstreamHandler = async (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = Buffer.from(deltaFrame(request.body.model, { content: 'x'.repeat(64 * 1024) }));
    while (progress.written < total) {
      if (response.destroyed) return;
      progress.written += frame.length;
      if (!response.write(frame)) {
        progress.blocked = true;
        await drainOrClose(response);
        progress.blocked = false;
      }
    }
    progress.finished = true;
    response.end('data: [DONE]\n\n');
  };
  return { handler, progress };
}

/** One `data:` frame of a stream: a chunk whose one choice carries `delta`, unfinished. */
export function deltaFrame(model: string, delta: Record<string, unknown>): string {
  const chunk = { id: 'up', object: 'chat.completion.chunk', created: 1, model };
  return `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
}
