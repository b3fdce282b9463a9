import type { MessageParam } from '../anthropic-messages.types';
import {
  invalidField,
  optionalBoolean,
  optionalString,
  requireArray,
  requireObject,
  requireString,
  requireTag,
} from './message-field';

// The `messages` of a Messages API body and the content blocks in them. Known block types are
// checked field by field, because translation reads them; other types (server tool results,
// search results, blocks added to the API later) only need a `type`, and reach Anthropic
// deployments unchanged. Nothing is copied: the checked value is the client's own.

const ROLES = ['user', 'assistant', 'system'] as const;
const IMAGE_SOURCES = ['base64', 'url', 'file'] as const;
const DOCUMENT_SOURCES = ['base64', 'text', 'url', 'content', 'file'] as const;

/** Where a block stands decides which block types it may be. */
type Place = 'user' | 'assistant' | 'system' | 'tool_result' | 'document';

export function checkMessages(value: unknown): MessageParam[] {
  const messages = requireArray(value, 'messages');
  if (messages.length === 0) throw invalidField('messages', 'at least one message is required');
  messages.forEach((message, index) => checkMessage(message, `messages.${index}`));
  return messages as MessageParam[];
}

function checkMessage(value: unknown, path: string): void {
  const message = requireObject(value, path);
  const role = requireTag(message.role, `${path}.role`, ROLES) as Place;
  checkContent(message.content, `${path}.content`, role);
}

/** A string, or an array of blocks each fitting `place`. */
export function checkContent(value: unknown, path: string, place: Place): void {
  if (typeof value === 'string') return;
  if (value === undefined) throw invalidField(path, 'Field required');
  if (!Array.isArray(value)) throw invalidField(path, 'Input should be a valid string or list');
  value.forEach((block, index) => checkBlock(block, `${path}.${index}`, place));
}

/** `system`, in a message or at the top level: a string or text blocks. */
export function checkSystem(value: unknown, path: string): void {
  checkContent(value, path, 'system');
}

function checkBlock(value: unknown, path: string, place: Place): void {
  const block = requireObject(value, path);
  const type = requireString(block.type, `${path}.type`);
  if (place === 'system' && type !== 'text')
    throw invalidField(`${path}.type`, "Input should be 'text'");
  if (place === 'document' && type !== 'text' && type !== 'image')
    throw invalidField(`${path}.type`, "Input should be 'text', 'image'");
  switch (type) {
    case 'text':
      requireString(block.text, `${path}.text`);
      return;
    case 'image':
      checkSource(block.source, `${path}.source`, IMAGE_SOURCES);
      return;
    case 'document':
      checkSource(block.source, `${path}.source`, DOCUMENT_SOURCES);
      optionalString(block.title, `${path}.title`);
      optionalString(block.context, `${path}.context`);
      return;
    case 'tool_use':
      // Translation turns tool_use into the assistant's tool calls and tool_result into tool
      // turns after them, so each must stand where the API puts it.
      if (place !== 'assistant')
        throw invalidField(path, 'tool_use blocks are only allowed in assistant messages');
      requireString(block.id, `${path}.id`);
      requireString(block.name, `${path}.name`);
      requireObject(block.input, `${path}.input`);
      return;
    case 'tool_result':
      if (place !== 'user')
        throw invalidField(path, 'tool_result blocks are only allowed in user messages');
      requireString(block.tool_use_id, `${path}.tool_use_id`);
      if (block.content != null) checkContent(block.content, `${path}.content`, 'tool_result');
      optionalBoolean(block.is_error, `${path}.is_error`);
      return;
    case 'thinking':
      requireString(block.thinking, `${path}.thinking`);
      optionalString(block.signature, `${path}.signature`);
      return;
    case 'redacted_thinking':
      requireString(block.data, `${path}.data`);
      return;
    default:
      return;
  }
}

function checkSource(value: unknown, path: string, allowed: readonly string[]): void {
  const source = requireObject(value, path);
  const type = requireTag(source.type, `${path}.type`, allowed);
  switch (type) {
    case 'base64':
      requireString(source.media_type, `${path}.media_type`);
      requireString(source.data, `${path}.data`);
      return;
    case 'text':
      optionalString(source.media_type, `${path}.media_type`);
      requireString(source.data, `${path}.data`);
      return;
    case 'url':
      requireString(source.url, `${path}.url`);
      return;
    case 'file':
      requireString(source.file_id, `${path}.file_id`);
      return;
    case 'content':
      checkContent(source.content, `${path}.content`, 'document');
      return;
  }
}
