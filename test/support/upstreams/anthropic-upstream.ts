import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import {
  json,
  RecordedRequest,
  ScriptedUpstream,
  sleep,
  StreamFaults,
  UpstreamHandler,
  writeFrame,
} from './scripted-upstream';

export { hang, sleep } from './scripted-upstream';
export type { Chunking, RecordedRequest, UpstreamHandler } from './scripted-upstream';

// A real HTTP server speaking Anthropic's Messages API (POST /v1/messages), JSON and SSE, byte for
// byte as api.anthropic.com does, for the e2e tests of the Anthropic adapter. It refuses what the
// real API refuses (wrong key, missing version header, missing max_tokens, roles not alternating),
// so a mapping bug shows up as the provider's own 400.

export const ANTHROPIC_TEST_KEY = 'sk-ant-api03-test-key';

export interface AnthropicToolUseScript {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

/** One scripted answer; a stream's error (errorAfter) is an overloaded `event: error`. */
export interface AnthropicScript extends StreamFaults {
  /** Text pieces: one text_delta each in a stream, joined in a JSON answer. */
  text?: string[];
  toolUses?: AnthropicToolUseScript[];
  /** A thinking block before the text: one thinking_delta per piece, then its signature. */
  thinking?: { text: string[]; signature: string };
  /** Default: tool_use when there are tool uses, else end_turn. */
  stopReason?: string;
  /** The stop sequence that ended the answer (stop_reason stop_sequence). */
  stopSequence?: string;
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
}

export class FakeAnthropicUpstream extends ScriptedUpstream {
  /** The `base_url` to configure: includes the version segment, as for the real API. */
  override get url(): string {
    return `${this.origin}/v1`;
  }

  static async start(apiKey = ANTHROPIC_TEST_KEY): Promise<FakeAnthropicUpstream> {
    const { server, origin } = await ScriptedUpstream.listen();
    return new FakeAnthropicUpstream(server, origin, {
      provider: 'anthropic',
      apiKey,
      gate: (request) => refusal(request, apiKey),
      fallback: (request, response) =>
        request.path === COUNT_TOKENS_PATH
          ? countTokens()(request, response)
          : anthropicAnswer({ text: ['Hello from the fake Anthropic upstream.'] })(
              request,
              response,
            ),
    });
  }
}

/** What the real API answers before looking at the model: routing, auth, then body validation. */
function refusal(request: RecordedRequest, apiKey: string): UpstreamHandler | undefined {
  const counting = request.path === COUNT_TOKENS_PATH;
  if (request.method !== 'POST' || (request.path !== '/v1/messages' && !counting))
    return anthropicError(404, 'not_found_error', 'Not Found');
  if (request.headers['x-api-key'] !== apiKey)
    return anthropicError(401, 'authentication_error', 'invalid x-api-key');
  if (!request.headers['anthropic-version'])
    return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  const body = request.body;
  if (!body || typeof body !== 'object')
    return anthropicError(
      400,
      'invalid_request_error',
      'There was an error parsing the body of your request.',
    );
  if (typeof body.max_tokens !== 'number' && !counting)
    return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
  const messages: Array<{ role: string }> = Array.isArray(body.messages) ? body.messages : [];
  for (const [index, message] of messages.entries()) {
    // System messages between the turns are part of the current API (the SDK's SystemMessageParam).
    if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system') {
      return anthropicError(
        400,
        'invalid_request_error',
        `messages.${index}.role: Input should be 'user', 'assistant' or 'system'`,
      );
    }
    if (index > 0 && messages[index - 1].role === message.role) {
      return anthropicError(
        400,
        'invalid_request_error',
        `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`,
      );
    }
  }
  return undefined;
}

const REQUEST_ID = 'req_011CSHoEeqs5C35K2UUqR7Fy';
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

/**
 * POST /v1/messages/count_tokens: `{"input_tokens": N}`, by default a deterministic count of
 * the system prompt, messages and tools (a quarter of their JSON's length), as the real API
 * counts exactly what the model would read.
 */
export function countTokens(inputTokens?: number): UpstreamHandler {
  return (request, response) => {
    const { system, messages, tools } = request.body ?? {};
    const counted = Math.ceil(JSON.stringify({ system, messages, tools }).length / 4);
    json(response, 200, { input_tokens: inputTokens ?? counted }, { 'request-id': REQUEST_ID });
  };
}

/** A recorded stream (test/fixtures/anthropic/*.sse) replayed byte for byte, cut as asked. */
export function recordedStream(fixture: string, chunking: Chunking = 'whole'): UpstreamHandler {
  const text = readFileSync(join(__dirname, '../../fixtures/anthropic', fixture), 'utf8');
  return async (_request, response) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': REQUEST_ID,
    });
    for (const frame of text.split(/(?<=\n\n)/)) await writeFrame(response, frame, chunking);
    response.end();
  };
}

export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): UpstreamHandler {
  return (_request, response) =>
    json(
      response,
      status,
      { type: 'error', error: { type, message }, request_id: REQUEST_ID },
      { 'request-id': REQUEST_ID, ...headers },
    );
}

export const rateLimited = (retryAfterSeconds = 1): UpstreamHandler =>
  anthropicError(
    429,
    'rate_limit_error',
    'This request would exceed the rate limit for your organization of 50 requests per minute.',
    {
      'retry-after': String(retryAfterSeconds),
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
    },
  );

export const overloaded = (): UpstreamHandler =>
  anthropicError(529, 'overloaded_error', 'Overloaded');

export const invalidRequest = (
  message = 'messages: at least one message is required',
): UpstreamHandler => anthropicError(400, 'invalid_request_error', message);

export const apiError = (): UpstreamHandler =>
  anthropicError(500, 'api_error', 'Internal server error');

/** A JSON message or an SSE stream, whichever the request asked for. */
export function anthropicAnswer(script: AnthropicScript): UpstreamHandler {
  return (request, response) =>
    request.body?.stream === true
      ? streamMessage(script, request, response)
      : jsonMessage(script, request, response);
}

function toolId(tool: AnthropicToolUseScript, index: number): string {
  return tool.id ?? `toolu_01T1x1fJ34qAmk2tNTrN7U${String(index).padStart(2, '0')}`;
}

function stopReasonOf(script: AnthropicScript): string {
  if (script.stopSequence !== undefined) return 'stop_sequence';
  return script.stopReason ?? (script.toolUses?.length ? 'tool_use' : 'end_turn');
}

function usageOf(script: AnthropicScript) {
  return {
    input_tokens: 25,
    output_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...script.usage,
  };
}

function jsonMessage(
  script: AnthropicScript,
  request: RecordedRequest,
  response: ServerResponse,
): void {
  const text = (script.text ?? []).join('');
  json(
    response,
    200,
    {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: request.body.model,
      content: [
        ...(script.thinking
          ? [
              {
                type: 'thinking',
                thinking: script.thinking.text.join(''),
                signature: script.thinking.signature,
              },
            ]
          : []),
        ...(text ? [{ type: 'text', text }] : []),
        ...(script.toolUses ?? []).map((tool, index) => ({
          type: 'tool_use',
          id: toolId(tool, index),
          name: tool.name,
          input: tool.input,
        })),
      ],
      stop_reason: stopReasonOf(script),
      stop_sequence: script.stopSequence ?? null,
      usage: { ...usageOf(script), service_tier: 'standard' },
    },
    { 'request-id': REQUEST_ID },
  );
}

async function streamMessage(
  script: AnthropicScript,
  request: RecordedRequest,
  response: ServerResponse,
): Promise<void> {
  const chunking = script.chunking ?? 'whole';
  const usage = usageOf(script);
  const send = (event: string, data: unknown) =>
    writeFrame(response, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, chunking);
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': REQUEST_ID,
  });
  // Headers go out at once, as the real API's do; the body may then keep the gateway waiting.
  response.flushHeaders();
  await sleep(script.firstByteDelayMs ?? 0);
  await send('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
      type: 'message',
      role: 'assistant',
      model: request.body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1, service_tier: 'standard' },
    },
  });
  let block = 0;
  if (script.thinking) {
    await send('content_block_start', {
      type: 'content_block_start',
      index: block,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    for (const thinking of script.thinking.text)
      await send('content_block_delta', {
        type: 'content_block_delta',
        index: block,
        delta: { type: 'thinking_delta', thinking },
      });
    await send('content_block_delta', {
      type: 'content_block_delta',
      index: block,
      delta: { type: 'signature_delta', signature: script.thinking.signature },
    });
    await send('content_block_stop', { type: 'content_block_stop', index: block++ });
  }
  const pieces = script.text ?? [];
  if (pieces.length > 0) {
    await send('content_block_start', {
      type: 'content_block_start',
      index: block,
      content_block: { type: 'text', text: '' },
    });
    await send('ping', { type: 'ping' });
    for (const [index, text] of pieces.entries()) {
      if (index > 0) await sleep(script.delayMs ?? 0);
      if (response.destroyed) return;
      if (script.errorAfter === index) {
        await send('error', {
          type: 'error',
          error: { type: 'overloaded_error', message: 'Overloaded' },
        });
        return void response.end();
      }
      if (script.cutAfter === index) return void response.socket?.destroy();
      await send('content_block_delta', {
        type: 'content_block_delta',
        index: block,
        delta: { type: 'text_delta', text },
      });
    }
    await send('content_block_stop', { type: 'content_block_stop', index: block++ });
  }
  for (const [index, tool] of (script.toolUses ?? []).entries()) {
    await send('content_block_start', {
      type: 'content_block_start',
      index: block,
      content_block: { type: 'tool_use', id: toolId(tool, index), name: tool.name, input: {} },
    });
    // The API opens with an empty partial_json, then sends the arguments in arbitrary slices.
    const input = JSON.stringify(tool.input);
    const third = Math.ceil(input.length / 3);
    for (const partial of [
      '',
      input.slice(0, third),
      input.slice(third, 2 * third),
      input.slice(2 * third),
    ]) {
      await send('content_block_delta', {
        type: 'content_block_delta',
        index: block,
        delta: { type: 'input_json_delta', partial_json: partial },
      });
    }
    await send('content_block_stop', { type: 'content_block_stop', index: block++ });
  }
  await send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReasonOf(script), stop_sequence: script.stopSequence ?? null },
    usage: { output_tokens: usage.output_tokens },
  });
  await send('message_stop', { type: 'message_stop' });
  response.end();
}
