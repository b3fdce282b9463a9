import { invalidParameter, isJsonObject } from '../../../common/validation/invalid-parameter';
import { nonEmptyString, oneOf, string } from '../../../common/validation/field-rules';
import type {
  ImageDetail,
  InputImagePart,
  InputItem,
  InputTextPart,
  ItemStatus,
  MessageItem,
  MessagePart,
  MessageRole,
  ToolOutput,
} from '../responses.types';

const ROLES: readonly MessageRole[] = ['user', 'assistant', 'system', 'developer'];
const STATUSES: readonly ItemStatus[] = ['in_progress', 'completed', 'incomplete'];
const DETAILS: readonly ImageDetail[] = ['low', 'high', 'auto', 'original'];
const ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
] as const;

/** Content part types per role, as OpenAI takes them; the rest answer 400 naming the part. */
const PARTS_BY_ROLE: Record<MessageRole, readonly MessagePart['type'][]> = {
  user: ['input_text', 'input_image'],
  system: ['input_text'],
  developer: ['input_text'],
  assistant: ['output_text', 'refusal', 'input_text'],
};

const DATA_URL = /^data:[\w.+-]+\/[\w.+-]+(?:;[^,;]*)*;base64,/;
const HTTP_URL = /^https?:\/\//i;

/**
 * `input` as items: a string is one user message. Each item is checked and returned in its
 * canonical shape (a message's string content as one text part), which is what is stored,
 * listed by GET .../input_items and replayed on previous_response_id.
 */
export function parseInput(value: unknown): InputItem[] {
  if (typeof value === 'string')
    return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] }];
  if (!Array.isArray(value))
    throw invalidParameter('input', 'must be a string or an array of input items');
  return value.map((item, index) => parseInputItem(item, `input[${index}]`));
}

function parseInputItem(value: unknown, path: string): InputItem {
  if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
  // The "easy" message form has a role and no type.
  const type: unknown = value.type ?? (value.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      return parseMessage(value, path);
    case 'function_call':
      return withCommon(value, path, {
        type: 'function_call',
        call_id: nonEmptyString()(value.call_id, `${path}.call_id`),
        name: nonEmptyString()(value.name, `${path}.name`),
        arguments: string()(value.arguments, `${path}.arguments`),
      });
    case 'custom_tool_call':
      return withCommon(value, path, {
        type: 'custom_tool_call',
        call_id: nonEmptyString()(value.call_id, `${path}.call_id`),
        name: nonEmptyString()(value.name, `${path}.name`),
        input: string()(value.input, `${path}.input`),
      });
    case 'function_call_output':
    case 'custom_tool_call_output':
      return withCommon(value, path, {
        type: type as 'function_call_output' | 'custom_tool_call_output',
        call_id: nonEmptyString()(value.call_id, `${path}.call_id`),
        output: parseToolOutput(value.output, `${path}.output`),
      });
    case 'reasoning':
      // No provider the gateway translates to takes reasoning back; kept as sent for the store.
      if (value.id != null) string()(value.id, `${path}.id`);
      return { ...value, type: 'reasoning' };
    case 'item_reference':
      throw invalidParameter(
        `${path}.type`,
        'item_reference is not supported: send the item itself, or continue with previous_response_id',
      );
    default:
      throw invalidParameter(`${path}.type`, `must be one of: ${ITEM_TYPES.join(', ')}`);
  }
}

/** The optional `id` (and `status`, on items that have one) every item may carry. */
function withCommon<T extends InputItem>(value: Record<string, unknown>, path: string, item: T): T {
  if (value.id != null) item.id = string()(value.id, `${path}.id`);
  if (value.status != null && item.type !== 'custom_tool_call' && item.type !== 'reasoning') {
    (item as { status?: ItemStatus }).status = oneOf(STATUSES)(value.status, `${path}.status`);
  }
  return item;
}

function parseMessage(value: Record<string, unknown>, path: string): MessageItem {
  const role = oneOf(ROLES)(value.role, `${path}.role`);
  const content = value.content;
  let parts: MessagePart[];
  if (typeof content === 'string') {
    parts = [
      role === 'assistant'
        ? { type: 'output_text', text: content, annotations: [] }
        : { type: 'input_text', text: content },
    ];
  } else if (Array.isArray(content) && content.length > 0) {
    parts = content.map((part, index) => parsePart(part, role, `${path}.content[${index}]`));
  } else {
    throw invalidParameter(`${path}.content`, 'must be a string or a non-empty array of parts');
  }
  return withCommon(value, path, { type: 'message', role, content: parts });
}

function parsePart(value: unknown, role: MessageRole, path: string): MessagePart {
  if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
  const allowed = PARTS_BY_ROLE[role];
  if (typeof value.type !== 'string' || !(allowed as readonly string[]).includes(value.type)) {
    throw invalidParameter(
      `${path}.type`,
      `must be one of the following values in a ${role} message: ${allowed.join(', ')}`,
    );
  }
  switch (value.type as MessagePart['type']) {
    case 'input_text':
      return textPart(value, path);
    case 'input_image':
      return imagePart(value, path);
    case 'output_text':
      return {
        type: 'output_text',
        text: string()(value.text, `${path}.text`),
        annotations: Array.isArray(value.annotations) ? value.annotations : [],
      };
    case 'refusal':
      return { type: 'refusal', refusal: string()(value.refusal, `${path}.refusal`) };
  }
}

function textPart(value: Record<string, unknown>, path: string): InputTextPart {
  return { type: 'input_text', text: string()(value.text, `${path}.text`) };
}

function imagePart(value: Record<string, unknown>, path: string): InputImagePart {
  if (value.image_url == null && value.file_id != null) {
    throw invalidParameter(
      `${path}.file_id`,
      'is not supported: the gateway keeps no files; send image_url (an http(s) or data URL)',
    );
  }
  const url = string()(value.image_url, `${path}.image_url`);
  // Refused here rather than by a provider: the model must not answer about an image it never saw.
  if (!DATA_URL.test(url) && !HTTP_URL.test(url))
    throw invalidParameter(`${path}.image_url`, 'must be an http(s) URL or a base64 data URL');
  const detail = value.detail == null ? 'auto' : oneOf(DETAILS)(value.detail, `${path}.detail`);
  return { type: 'input_image', image_url: url, detail };
}

/** A tool's result: a string, or input_text and input_image parts. */
function parseToolOutput(value: unknown, path: string): ToolOutput {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw invalidParameter(path, 'must be a string or an array of input_text and input_image');
  return value.map((part, index) => {
    const partPath = `${path}[${index}]`;
    if (!isJsonObject(part)) throw invalidParameter(partPath, 'must be an object');
    if (part.type === 'input_text') return textPart(part, partPath);
    if (part.type === 'input_image') return imagePart(part, partPath);
    throw invalidParameter(
      `${partPath}.type`,
      'must be one of the following values: input_text, input_image',
    );
  });
}
