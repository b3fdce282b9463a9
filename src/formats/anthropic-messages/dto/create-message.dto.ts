import { endUserId } from '../../../common/validation/end-user';
import type { CountTokensRequest, MessagesRequest } from '../anthropic-messages.types';
import { checkMessages, checkSystem } from './message-content.dto';
import {
  invalidField,
  isObject,
  optionalBoolean,
  optionalString,
  requireArray,
  requireInteger,
  requireNumber,
  requireObject,
  requireString,
  requireTag,
} from './message-field';

type Check = (value: unknown, path: string) => void;

const TOOL_CHOICES = ['auto', 'any', 'tool', 'none'] as const;

/**
 * The optional top-level fields the gateway reads, and how each is checked. `null` counts as
 * absent. Fields not listed are not looked at: Anthropic deployments receive them as sent,
 * translated deployments never see them (the /v1/messages table of docs/messages.md).
 */
const OPTIONAL_FIELDS: Record<string, Check> = {
  system: checkSystem,
  stop_sequences: (value, path) => {
    requireArray(value, path).forEach((item, index) => requireString(item, `${path}.${index}`));
  },
  temperature: (value, path) => requireNumber(value, path, 0, 1),
  top_p: (value, path) => requireNumber(value, path, 0, 1),
  top_k: (value, path) => requireInteger(value, path, 0),
  metadata: (value, path) => {
    const userId = requireObject(value, path).user_id;
    optionalString(userId, `${path}.user_id`);
    if (userId != null) endUserId(userId, `${path}.user_id`);
  },
  tools: (value, path) => requireArray(value, path).forEach(checkTool(path)),
  tool_choice: (value, path) => {
    const choice = requireObject(value, path);
    if (requireTag(choice.type, `${path}.type`, TOOL_CHOICES) === 'tool')
      requireString(choice.name, `${path}.name`);
    optionalBoolean(choice.disable_parallel_tool_use, `${path}.disable_parallel_tool_use`);
  },
  thinking: (value, path) => {
    const thinking = requireObject(value, path);
    // Only `enabled` has a field of its own; `adaptive`, `disabled` and later kinds pass as they are.
    if (requireString(thinking.type, `${path}.type`) === 'enabled')
      requireInteger(thinking.budget_tokens, `${path}.budget_tokens`, 1);
  },
  stream: (value, path) => optionalBoolean(value, path),
};

/** The top-level fields the gateway reads; the compatibility table lists them. */
export const MESSAGES_FIELDS: readonly string[] = [
  'model',
  'max_tokens',
  'messages',
  ...Object.keys(OPTIONAL_FIELDS),
];

function checkTool(path: string): (value: unknown, index: number) => void {
  return (value, index) => {
    const at = `${path}.${index}`;
    const tool = requireObject(value, at);
    requireString(tool.name, `${at}.name`);
    // A server tool (web search, code execution...) is named by its `type` and has no schema.
    if (tool.type != null && tool.type !== 'custom') {
      requireString(tool.type, `${at}.type`);
      return;
    }
    requireObject(tool.input_schema, `${at}.input_schema`);
    optionalString(tool.description, `${at}.description`);
    optionalBoolean(tool.strict, `${at}.strict`);
  };
}

/**
 * Checks a Messages API body that is within the shape limits and returns it, typed: the same
 * object, so a pass-through deployment receives exactly what the client sent. The first invalid
 * field answers 400, named in the message.
 */
export function parseMessagesRequest(body: Record<string, unknown>): MessagesRequest {
  checkBody(body, true);
  return body as unknown as MessagesRequest;
}

/** count_tokens takes the body of a message without `max_tokens` (one is allowed and ignored). */
export function parseCountTokensRequest(body: Record<string, unknown>): CountTokensRequest {
  checkBody(body, false);
  return body as unknown as CountTokensRequest;
}

function checkBody(body: Record<string, unknown>, maxTokensRequired: boolean): void {
  if (!isObject(body)) throw invalidField('body', 'Input should be an object');
  const model = requireString(body.model, 'model');
  if (model.length === 0) throw invalidField('model', 'String should have at least 1 character');
  if (maxTokensRequired || body.max_tokens != null)
    requireInteger(body.max_tokens, 'max_tokens', 1);
  checkMessages(body.messages);
  for (const [field, check] of Object.entries(OPTIONAL_FIELDS)) {
    const value = body[field];
    if (value != null) check(value, field);
  }
}
