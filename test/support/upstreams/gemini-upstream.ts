import type { ServerResponse } from 'node:http';
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

// A real HTTP server speaking the Gemini API (`/v1beta/models/<model>:generateContent` and
// `:streamGenerateContent?alt=sse`), byte for byte as generativelanguage.googleapis.com does:
// camelCase JSON, SSE frames ending in CRLF CRLF, Google's error envelope. It refuses what the real
// API refuses (unknown key, roles other than user/model, empty contents).

export const GEMINI_TEST_KEY = 'AIzaSyTestKey0123456789abcdefghijklmno';

export interface GeminiFunctionCallScript {
  name: string;
  args: Record<string, unknown>;
  /** Sent next to the call, as thinking models do; Gemini 3 wants it back on the next turn. */
  thoughtSignature?: string;
}

/** One scripted answer; a stream's error (errorAfter) is a Google error payload as the next `data:`. */
export interface GeminiScript extends StreamFaults {
  /** Text pieces: one chunk each in a stream, joined in a JSON answer. */
  text?: string[];
  functionCalls?: GeminiFunctionCallScript[];
  /** Default STOP. */
  finishReason?: string;
  usage?: {
    promptTokenCount: number;
    candidatesTokenCount: number;
    thoughtsTokenCount?: number;
    cachedContentTokenCount?: number;
  };
}

const PATH =
  /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents)(\?.*)?$/;

/** Gemini refuses a batchEmbedContents call of more requests than this. */
export const GEMINI_MAX_EMBED_BATCH = 100;

export class FakeGeminiUpstream extends ScriptedUpstream {
  /** The `base_url` to configure: includes the version segment, as for the real API. */
  override get url(): string {
    return `${this.origin}/v1beta`;
  }

  static async start(apiKey = GEMINI_TEST_KEY): Promise<FakeGeminiUpstream> {
    const { server, origin } = await ScriptedUpstream.listen();
    return new FakeGeminiUpstream(server, origin, {
      provider: 'gemini',
      apiKey,
      gate: (request) => refusal(request, apiKey),
      fallback: geminiAnswer({ text: ['Hello from the fake Gemini upstream.'] }),
    });
  }
}

function refusal(request: RecordedRequest, apiKey: string): UpstreamHandler | undefined {
  const match = PATH.exec(request.path);
  if (request.method !== 'POST' || !match)
    return geminiError(404, 'NOT_FOUND', `Requested entity was not found.`);
  const key = request.headers['x-goog-api-key'];
  if (!key) {
    return geminiError(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (key !== apiKey) {
    // Google answers a wrong key with 400, not 401.
    return geminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]);
  }
  if (match[2] === 'batchEmbedContents') return embedRefusal(request, match[1]);
  const contents: Array<{ role?: string }> = Array.isArray(request.body?.contents)
    ? request.body.contents
    : [];
  if (contents.length === 0)
    return geminiError(
      400,
      'INVALID_ARGUMENT',
      '* GenerateContentRequest.contents: contents is not specified\n',
    );
  const badRole = contents.find(
    (content) => content.role !== undefined && content.role !== 'user' && content.role !== 'model',
  );
  if (badRole) return geminiError(400, 'INVALID_ARGUMENT', `Please use a valid role: user, model.`);
  return undefined;
}

/** What the real API refuses of a batchEmbedContents body. */
function embedRefusal(request: RecordedRequest, model: string): UpstreamHandler | undefined {
  const requests: Array<{ model?: string; content?: { parts?: Array<{ text?: unknown }> } }> =
    Array.isArray(request.body?.requests) ? request.body.requests : [];
  if (requests.length === 0)
    return geminiError(400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: required');
  if (requests.length > GEMINI_MAX_EMBED_BATCH)
    return geminiError(
      400,
      'INVALID_ARGUMENT',
      `* BatchEmbedContentsRequest.requests: at most ${GEMINI_MAX_EMBED_BATCH} requests can be in one batch`,
    );
  const bad = requests.find(
    (item) =>
      item.model !== `models/${model}` ||
      !item.content?.parts?.length ||
      item.content.parts.some((part) => typeof part.text !== 'string'),
  );
  if (bad)
    return geminiError(400, 'INVALID_ARGUMENT', 'Invalid value at requests: model or content');
  return undefined;
}

/**
 * batchEmbedContents answered as Gemini does (no token counts): the vector of each text is
 * `[its length, its position in the batch, 0, 0, ...]`, `outputDimensionality` long (default 8).
 */
export function geminiEmbeddings(): UpstreamHandler {
  return (request, response) => {
    const requests: Array<{
      content: { parts: Array<{ text: string }> };
      outputDimensionality?: number;
    }> = request.body.requests;
    json(response, 200, {
      embeddings: requests.map((item, index) => {
        const values = new Array<number>(item.outputDimensionality ?? 8).fill(0);
        values[0] = item.content.parts[0].text.length;
        values[1] = index;
        return { values };
      }),
    });
  };
}

export function geminiError(
  code: number,
  status: string,
  message: string,
  details?: unknown[],
  headers: Record<string, string> = {},
): UpstreamHandler {
  return (_request, response) =>
    json(
      response,
      code,
      { error: { code, message, status, ...(details ? { details } : {}) } },
      headers,
    );
}

/** 429 with the RetryInfo detail Google sends instead of a Retry-After header. */
export const rateLimited = (retryDelaySeconds = 1): UpstreamHandler =>
  geminiError(
    429,
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details.',
    [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelaySeconds}s` }],
  );

export const unavailable = (): UpstreamHandler =>
  geminiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');

export const internalError = (): UpstreamHandler =>
  geminiError(
    500,
    'INTERNAL',
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  );

export const invalidArgument = (
  message = 'Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"',
): UpstreamHandler => geminiError(400, 'INVALID_ARGUMENT', message);

/** A JSON answer or a stream, whichever endpoint the request called. */
export function geminiAnswer(script: GeminiScript): UpstreamHandler {
  return (request, response) => {
    if (PATH.exec(request.path)?.[2] !== 'streamGenerateContent')
      return json(response, 200, wholeAnswer(script, request));
    // Without alt=sse the API streams one JSON array instead of events.
    if (!/[?&]alt=sse(&|$)/.test(request.path))
      return json(response, 200, streamChunks(script, request));
    return streamAnswer(script, request, response);
  };
}

function modelOf(request: RecordedRequest): string {
  return PATH.exec(request.path)?.[1] ?? 'gemini';
}

function usageOf(script: GeminiScript) {
  const usage = { promptTokenCount: 9, candidatesTokenCount: 12, ...script.usage };
  return {
    ...usage,
    totalTokenCount:
      usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.promptTokenCount }],
  };
}

function callParts(script: GeminiScript) {
  return (script.functionCalls ?? []).map((call) => ({
    functionCall: { name: call.name, args: call.args },
    ...(call.thoughtSignature ? { thoughtSignature: call.thoughtSignature } : {}),
  }));
}

function wholeAnswer(script: GeminiScript, request: RecordedRequest) {
  const text = (script.text ?? []).join('');
  return {
    candidates: [
      {
        content: { parts: [...(text ? [{ text }] : []), ...callParts(script)], role: 'model' },
        finishReason: script.finishReason ?? 'STOP',
        index: 0,
      },
    ],
    usageMetadata: usageOf(script),
    modelVersion: modelOf(request),
    responseId: 'kX0kaLiNGdWxz7IP2Ku6wAY',
  };
}

/** The chunks of a streamed answer: one per text piece, the last with calls, finishReason and final usage. */
function streamChunks(script: GeminiScript, request: RecordedRequest): unknown[] {
  const usage = usageOf(script);
  const base = { modelVersion: modelOf(request), responseId: 'nH0kaOfMKJ6az7IP0uDY8Q4' };
  const pieces = script.text ?? [];
  const chunks: unknown[] = pieces.map((text, index) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
    // Every chunk carries usage so far; only the last one's counts are final.
    usageMetadata: {
      ...usage,
      candidatesTokenCount: index + 1,
      totalTokenCount: usage.promptTokenCount + index + 1,
    },
    ...base,
  }));
  const calls = callParts(script);
  // The finish reason rides on the last text chunk, or on a chunk of its own after the calls.
  chunks.push({
    candidates: [
      {
        content: { parts: calls.length > 0 ? calls : [{ text: '' }], role: 'model' },
        finishReason: script.finishReason ?? 'STOP',
        index: 0,
      },
    ],
    usageMetadata: usage,
    ...base,
  });
  return chunks;
}

async function streamAnswer(
  script: GeminiScript,
  request: RecordedRequest,
  response: ServerResponse,
): Promise<void> {
  const chunking = script.chunking ?? 'whole';
  const chunks = streamChunks(script, request);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
  await sleep(script.firstByteDelayMs ?? 0);
  for (const [index, chunk] of chunks.entries()) {
    if (index > 0) await sleep(script.delayMs ?? 0);
    if (response.destroyed) return;
    if (script.errorAfter === index) {
      const error = {
        error: {
          code: 503,
          message: 'The model is overloaded. Please try again later.',
          status: 'UNAVAILABLE',
        },
      };
      await writeFrame(response, `data: ${JSON.stringify(error)}\r\n\r\n`, chunking);
      return void response.end();
    }
    if (script.cutAfter === index) return void response.socket?.destroy();
    await writeFrame(response, `data: ${JSON.stringify(chunk)}\r\n\r\n`, chunking);
  }
  response.end();
}
