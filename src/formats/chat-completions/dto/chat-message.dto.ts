import { invalidParameter, isJsonObject } from '../../../common/validation/invalid-parameter';
import type { ContentPart, MessageContent } from '../../../providers/provider-adapter.interface';

export const MESSAGE_ROLES = [
  'system',
  'developer',
  'user',
  'assistant',
  'tool',
  'function',
] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A validated message: only these fields survive; the others a client sends are dropped. */
export interface ChatMessageDto {
  role: MessageRole;
  content: MessageContent | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown[];
  function_call?: unknown;
}

type PartType = ContentPart['type'];

/** The content parts OpenAI accepts per role; a legacy `function` turn takes a string only. */
const PARTS_BY_ROLE: Record<MessageRole, readonly PartType[]> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
  function: [],
};

/**
 * Checks one element of `messages` and returns the fields the gateway forwards. Content parts are
 * returned as the client sent them, so OpenAI-compatible providers get them unchanged.
 */
export function parseMessage(value: unknown, path: string): ChatMessageDto {
  if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
  const role = value.role;
  if (typeof role !== 'string' || !(MESSAGE_ROLES as readonly string[]).includes(role)) {
    throw invalidParameter(
      `${path}.role`,
      `must be one of the following values: ${MESSAGE_ROLES.join(', ')}`,
    );
  }
  const message: ChatMessageDto = { role: role as MessageRole, content: null };

  // Calls are only meaningful on the assistant turn that made them; elsewhere they are dropped.
  if (role === 'assistant' && value.tool_calls != null) {
    const calls = value.tool_calls;
    if (!Array.isArray(calls)) throw invalidParameter(`${path}.tool_calls`, 'must be an array');
    calls.forEach((call, index) => {
      if (!isJsonObject(call))
        throw invalidParameter(`${path}.tool_calls[${index}]`, 'must be an object');
    });
    message.tool_calls = calls;
  }
  if (role === 'assistant' && value.function_call != null) {
    if (!isJsonObject(value.function_call))
      throw invalidParameter(`${path}.function_call`, 'must be an object');
    message.function_call = value.function_call;
  }

  if (value.content == null) {
    // Content may be absent only on an assistant turn that carries a call instead.
    if (!(message.tool_calls || message.function_call))
      throw invalidParameter(`${path}.content`, 'must be a string or an array of content parts');
  } else {
    message.content = parseContent(value.content, role as MessageRole, `${path}.content`);
  }

  if (value.name != null || role === 'function') {
    if (typeof value.name !== 'string' || value.name.length === 0)
      throw invalidParameter(`${path}.name`, 'must be a non-empty string');
    if (value.name.length > 256)
      throw invalidParameter(`${path}.name`, 'must be shorter than or equal to 256 characters');
    message.name = value.name;
  }
  if (role === 'tool') {
    if (typeof value.tool_call_id !== 'string')
      throw invalidParameter(`${path}.tool_call_id`, 'must be a string');
    message.tool_call_id = value.tool_call_id;
  }
  return message;
}

function parseContent(content: unknown, role: MessageRole, path: string): MessageContent {
  if (typeof content === 'string') return content;
  const allowed = PARTS_BY_ROLE[role];
  if (!Array.isArray(content) || allowed.length === 0) {
    throw invalidParameter(
      path,
      allowed.length === 0 ? 'must be a string' : 'must be a string or an array of content parts',
    );
  }
  if (content.length === 0) throw invalidParameter(path, 'must contain at least 1 content part');
  content.forEach((part, index) => checkPart(part, allowed, `${path}[${index}]`));
  return content as ContentPart[];
}

function checkPart(part: unknown, allowed: readonly PartType[], path: string): void {
  if (!isJsonObject(part)) throw invalidParameter(path, 'must be an object');
  const type = part.type as PartType;
  if (!allowed.includes(type))
    throw invalidParameter(
      `${path}.type`,
      `must be one of the following values: ${allowed.join(', ')}`,
    );
  switch (type) {
    case 'text':
    case 'refusal':
      requireString(part, type, path);
      return;
    case 'image_url':
      requireString(requireObject(part, 'image_url', path), 'url', `${path}.image_url`);
      return;
    case 'input_audio': {
      const audio = requireObject(part, 'input_audio', path);
      requireString(audio, 'data', `${path}.input_audio`);
      requireString(audio, 'format', `${path}.input_audio`);
      return;
    }
    case 'file': {
      const file = requireObject(part, 'file', path);
      for (const field of ['file_data', 'file_id', 'filename']) {
        if (file[field] !== undefined && typeof file[field] !== 'string')
          throw invalidParameter(`${path}.file.${field}`, 'must be a string');
      }
      if (file.file_data === undefined && file.file_id === undefined)
        throw invalidParameter(`${path}.file`, 'must have file_data or file_id');
      return;
    }
  }
}

function requireObject(
  parent: Record<string, unknown>,
  field: string,
  path: string,
): Record<string, unknown> {
  const value = parent[field];
  if (!isJsonObject(value)) throw invalidParameter(`${path}.${field}`, 'must be an object');
  return value;
}

function requireString(parent: Record<string, unknown>, field: string, path: string): void {
  if (typeof parent[field] !== 'string')
    throw invalidParameter(`${path}.${field}`, 'must be a string');
}
