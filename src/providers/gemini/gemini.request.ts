import type { DeploymentConfig } from '../../config/gateway-config.types';
import {
  contentParts,
  contentText,
  functionTools,
  imageSource,
  parseArguments,
  requestedMaxTokens,
  stopSequences,
  toolCallsOf,
} from '../chat-input';
import type { ChatTurn, UpstreamChatRequest } from '../provider-adapter.interface';
import { thoughtSignatureOf } from './gemini.tool-call-id';
import { configuredHeaders } from '../configured-headers';

// OpenAI chat request -> Gemini generateContent request. Pure: no I/O.

export type GeminiPart =
  | { text: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType?: string; fileUri: string } }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: Record<string, unknown>;
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  generationConfig?: GeminiGenerationConfig;
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: {
    functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
  };
}

export function buildGeminiRequest(
  request: Pick<UpstreamChatRequest, 'messages' | 'parameters'>,
): GeminiRequestBody {
  const { parameters } = request;
  const body: GeminiRequestBody = { contents: mapContents(request.messages) };
  const system = request.messages
    .filter((turn) => turn.role === 'system' || turn.role === 'developer')
    .map((turn) => contentText(turn.content))
    .filter((text) => text.length > 0);
  if (system.length > 0) body.systemInstruction = { parts: system.map((text) => ({ text })) };
  const config = generationConfig(parameters);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  const tools = functionTools(parameters.tools);
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.function.name,
          ...(tool.function.description ? { description: tool.function.description } : {}),
          // The JSON-Schema field, not `parameters` (an OpenAPI subset that rejects keywords such as
          // `additionalProperties`, which OpenAI's strict tools always carry).
          ...(tool.function.parameters ? { parametersJsonSchema: tool.function.parameters } : {}),
        })),
      },
    ];
    const toolConfig = mapToolChoice(parameters.tool_choice);
    if (toolConfig) body.toolConfig = { functionCallingConfig: toolConfig };
  }
  return body;
}

function generationConfig(parameters: Record<string, unknown>): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (typeof parameters.temperature === 'number') config.temperature = parameters.temperature;
  if (typeof parameters.top_p === 'number') config.topP = parameters.top_p;
  // Only /v1/messages sets top_k (Anthropic's sampling option); Gemini samples by it too.
  if (typeof parameters.top_k === 'number') config.topK = parameters.top_k;
  const maxTokens = requestedMaxTokens(parameters);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  const stops = stopSequences(parameters.stop);
  if (stops) config.stopSequences = stops;
  // n > 1 is refused before this (refuseUnsupported): only the first candidate would be relayed.
  if (typeof parameters.seed === 'number') config.seed = parameters.seed;
  if (typeof parameters.presence_penalty === 'number')
    config.presencePenalty = parameters.presence_penalty;
  if (typeof parameters.frequency_penalty === 'number')
    config.frequencyPenalty = parameters.frequency_penalty;
  const format = parameters.response_format as
    { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    const schema = format.json_schema?.schema;
    if (schema && typeof schema === 'object')
      config.responseJsonSchema = schema as Record<string, unknown>;
  }
  return config;
}

export function mapToolChoice(
  choice: unknown,
): NonNullable<GeminiRequestBody['toolConfig']>['functionCallingConfig'] | undefined {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  const name = (choice as { function?: { name?: unknown } } | null)?.function?.name;
  if (typeof name === 'string') return { mode: 'ANY', allowedFunctionNames: [name] };
  return undefined;
}

function mapContents(messages: ChatTurn[]): GeminiContent[] {
  // A tool message names only the call id; Gemini's functionResponse wants the function name,
  // which the assistant turn that made the call holds.
  const functionNameByCallId = new Map<string, string>();
  for (const turn of messages) {
    for (const call of toolCallsOf(turn)) functionNameByCallId.set(call.id, call.function.name);
  }
  const contents: GeminiContent[] = [];
  for (const turn of messages) {
    const mapped = mapTurn(turn, functionNameByCallId);
    if (!mapped || mapped.parts.length === 0) continue;
    const previous = contents[contents.length - 1];
    // Replies to parallel calls must arrive together in one turn; other same-role neighbours are
    // merged too so the conversation alternates.
    if (previous && previous.role === mapped.role) previous.parts.push(...mapped.parts);
    else contents.push(mapped);
  }
  return contents;
}

function mapTurn(
  turn: ChatTurn,
  functionNameByCallId: Map<string, string>,
): GeminiContent | undefined {
  switch (turn.role) {
    case 'user':
      return { role: 'user', parts: contentToParts(turn.content) };
    case 'assistant': {
      const calls: GeminiPart[] = toolCallsOf(turn).map((call) => {
        const signature = thoughtSignatureOf(call.id);
        return {
          functionCall: { name: call.function.name, args: parseArguments(call.function.arguments) },
          ...(signature ? { thoughtSignature: signature } : {}),
        };
      });
      return { role: 'model', parts: [...contentToParts(turn.content), ...calls] };
    }
    case 'tool': {
      const name =
        functionNameByCallId.get(turn.tool_call_id ?? '') ?? turn.name ?? 'unknown_function';
      return {
        role: 'user',
        parts: [
          { functionResponse: { name, response: functionResponse(contentText(turn.content)) } },
        ],
      };
    }
    default:
      return undefined;
  }
}

/** Gemini wants an object: a JSON object result is passed as is, anything else wrapped. */
function functionResponse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
    return { result: value };
  } catch {
    return { result: text };
  }
}

function contentToParts(content: ChatTurn['content']): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const part of contentParts(content)) {
    if (part.type === 'text') {
      if (part.text.length > 0) parts.push({ text: part.text });
      continue;
    }
    const source = imageSource(part.image_url.url);
    if (source.kind === 'base64')
      parts.push({ inlineData: { mimeType: source.mediaType, data: source.data } });
    else parts.push({ fileData: { mimeType: guessImageType(source.url), fileUri: source.url } });
  }
  return parts;
}

function guessImageType(url: string): string {
  const extension = /\.(png|jpe?g|gif|webp|heic|heif)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  if (!extension) return 'image/jpeg';
  return extension === 'jpg' ? 'image/jpeg' : `image/${extension}`;
}

export function geminiUrl(
  deployment: Pick<DeploymentConfig, 'baseUrl' | 'upstreamModel'>,
  stream: boolean,
): string {
  const base = (deployment.baseUrl ?? '').replace(/\/+$/, '');
  // Google's own examples name models both ways ("gemini-2.5-flash" and "models/gemini-2.5-flash").
  const model = (deployment.upstreamModel ?? '').replace(/^models\//, '');
  return `${base}/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

export function geminiHeaders(
  deployment: Pick<DeploymentConfig, 'apiKey' | 'headers'>,
  requestId: string,
): Record<string, string> {
  return Object.assign({}, configuredHeaders(deployment), {
    'x-goog-api-key': deployment.apiKey ?? '',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': requestId,
  });
}
