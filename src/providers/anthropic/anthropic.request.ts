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
import { configuredHeaders } from '../configured-headers';

// OpenAI chat request -> Anthropic Messages request (POST {base_url}/messages). Pure: no I/O.

export const ANTHROPIC_VERSION = '2023-06-01';

export type AnthropicImageSource =
  { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequestBody {
  model: string | undefined;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  metadata?: { user_id: string };
}

/**
 * @param defaultMaxTokens Anthropic requires `max_tokens`; this is the deployment's documented
 *   default, used when the client sent neither `max_tokens` nor `max_completion_tokens`.
 */
export function buildAnthropicRequest(
  request: Pick<UpstreamChatRequest, 'deployment' | 'messages' | 'parameters'>,
  options: { stream: boolean; defaultMaxTokens: number },
): AnthropicRequestBody {
  const { parameters } = request;
  const body: AnthropicRequestBody = {
    model: request.deployment.upstreamModel,
    max_tokens: requestedMaxTokens(parameters) ?? options.defaultMaxTokens,
    messages: mapMessages(request.messages),
  };
  const system = systemPrompt(request.messages);
  if (system !== undefined) body.system = system;
  if (typeof parameters.temperature === 'number') {
    // OpenAI's range is 0-2, Anthropic's 0-1: clamp rather than have the provider reject it.
    body.temperature = Math.min(1, parameters.temperature);
  }
  if (typeof parameters.top_p === 'number') body.top_p = parameters.top_p;
  const stops = stopSequences(parameters.stop);
  if (stops) body.stop_sequences = stops;
  if (options.stream) body.stream = true;
  const tools = functionTools(parameters.tools);
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      // Anthropic requires a schema even for a tool without parameters.
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    }));
    const choice = mapToolChoice(parameters.tool_choice, parameters.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  if (typeof parameters.user === 'string' && parameters.user.length > 0)
    body.metadata = { user_id: parameters.user };
  return body;
}

/**
 * Anthropic has one top-level system prompt and no developer role: every system or developer turn,
 * wherever it stands, is lifted there in order.
 */
function systemPrompt(messages: ChatTurn[]): string | undefined {
  const texts = messages
    .filter((turn) => turn.role === 'system' || turn.role === 'developer')
    .map((turn) => contentText(turn.content))
    .filter((text) => text.length > 0);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function mapMessages(messages: ChatTurn[]): AnthropicMessage[] {
  const result: AnthropicMessage[] = [];
  for (const turn of messages) {
    const mapped = mapTurn(turn);
    if (!mapped || mapped.content.length === 0) continue;
    const previous = result[result.length - 1];
    // The API wants user and assistant to alternate: same-role neighbours (several tool results,
    // a tool result followed by a user remark, two user turns) become one turn.
    if (previous && previous.role === mapped.role) previous.content.push(...mapped.content);
    else result.push(mapped);
  }
  for (const message of result) {
    // In a user turn the tool_result blocks must come before any other content.
    if (message.role === 'user') {
      message.content = [
        ...message.content.filter((block) => block.type === 'tool_result'),
        ...message.content.filter((block) => block.type !== 'tool_result'),
      ];
    }
  }
  return result;
}

function mapTurn(turn: ChatTurn): AnthropicMessage | undefined {
  switch (turn.role) {
    case 'user':
      return { role: 'user', content: contentBlocks(turn.content) };
    case 'assistant': {
      const toolUses: AnthropicContentBlock[] = toolCallsOf(turn).map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      }));
      return { role: 'assistant', content: [...contentBlocks(turn.content), ...toolUses] };
    }
    case 'tool':
      return {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: turn.tool_call_id ?? '',
            content: contentText(turn.content),
          },
        ],
      };
    default:
      // system and developer went to the top-level prompt.
      return undefined;
  }
}

function contentBlocks(content: ChatTurn['content']): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  for (const part of contentParts(content)) {
    if (part.type === 'text') {
      // Anthropic rejects empty text blocks.
      if (part.text.length > 0) blocks.push({ type: 'text', text: part.text });
      continue;
    }
    const source = imageSource(part.image_url.url);
    if (source.kind === 'base64')
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: source.mediaType, data: source.data },
      });
    else blocks.push({ type: 'image', source: { type: 'url', url: source.url } });
  }
  return blocks;
}

export function mapToolChoice(
  choice: unknown,
  parallelToolCalls: unknown,
): AnthropicToolChoice | undefined {
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  const name = (choice as { function?: { name?: unknown } } | null)?.function?.name;
  if (typeof name === 'string') return { type: 'tool', name, ...disableParallel };
  return parallelToolCalls === false
    ? { type: 'auto', disable_parallel_tool_use: true }
    : undefined;
}

export function anthropicUrl(deployment: Pick<DeploymentConfig, 'baseUrl'>): string {
  return `${(deployment.baseUrl ?? '').replace(/\/+$/, '')}/messages`;
}

export function anthropicHeaders(
  deployment: Pick<DeploymentConfig, 'apiKey' | 'headers'>,
  requestId: string,
): Record<string, string> {
  return Object.assign({}, configuredHeaders(deployment), {
    'x-api-key': deployment.apiKey ?? '',
    'anthropic-version': ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': requestId,
  });
}
