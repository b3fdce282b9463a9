import { endUserId } from '../../../common/validation/end-user';
import {
  boolean,
  integer,
  MAX_COMPLETION_TOKENS,
  number,
  readOptionalFields,
  type Rule,
  string,
} from '../../../common/validation/field-rules';
import { invalidParameter, isJsonObject } from '../../../common/validation/invalid-parameter';
import { ChatMessageDto, parseMessage } from './chat-message.dto';

export interface StreamOptionsDto {
  include_usage?: boolean;
}

/**
 * The request body of POST /v1/chat/completions after validation. Only fields declared here
 * survive; which of them reach the provider is decided by the compatibility matrix.
 */
export interface CreateChatCompletionDto {
  model: string;
  messages: ChatMessageDto[];
  stream?: boolean;
  stream_options?: StreamOptionsDto;
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  user?: string;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  response_format?: { type: string };
  tools?: object[];
  tool_choice?: string | object;
  parallel_tool_calls?: boolean;
  reasoning_effort?: string;
  n?: number;
  logprobs?: boolean;
  top_logprobs?: number;
}

type OptionalField = Exclude<keyof CreateChatCompletionDto, 'model' | 'messages'>;

/** OpenAI's documented limits. */
export const MAX_LOGIT_BIAS_ENTRIES = 300;
export const MAX_TOOLS = 128;
export const MAX_CHOICES = 128;
export const MAX_TOP_LOGPROBS = 20;

/**
 * How each optional field is checked, in the order errors are reported. Every rule is linear in
 * the size of its value; the body's nesting is bounded before any of them runs.
 */
const OPTIONAL_FIELDS: { [F in OptionalField]-?: Rule<NonNullable<CreateChatCompletionDto[F]>> } = {
  stream: boolean(),
  stream_options: (value, path) => {
    if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
    const options: StreamOptionsDto = {};
    if (value.include_usage != null)
      options.include_usage = boolean()(value.include_usage, `${path}.include_usage`);
    return options;
  },
  temperature: number(0, 2),
  max_tokens: integer(1, MAX_COMPLETION_TOKENS),
  max_completion_tokens: integer(1, MAX_COMPLETION_TOKENS),
  top_p: number(0, 1),
  stop: (value, path) => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length <= 4 && value.every((s) => typeof s === 'string'))
      return value as string[];
    throw invalidParameter(path, 'must be a string or an array of at most 4 strings');
  },
  seed: integer(),
  user: endUserId,
  presence_penalty: number(-2, 2),
  frequency_penalty: number(-2, 2),
  logit_bias: (value, path) => {
    if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
    const entries = Object.entries(value);
    if (entries.length > MAX_LOGIT_BIAS_ENTRIES)
      throw invalidParameter(path, `must have at most ${MAX_LOGIT_BIAS_ENTRIES} entries`);
    for (const [token, bias] of entries) {
      if (!/^\d+$/.test(token))
        throw invalidParameter(`${path}.${token}`, 'must be a token id (an integer)');
      number(-100, 100)(bias, `${path}.${token}`);
    }
    return value as Record<string, number>;
  },
  response_format: (value, path) => {
    if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
    string()(value.type, `${path}.type`);
    return value as { type: string };
  },
  tools: (value, path) => {
    if (!Array.isArray(value)) throw invalidParameter(path, 'must be an array');
    if (value.length > MAX_TOOLS)
      throw invalidParameter(path, `must contain no more than ${MAX_TOOLS} elements`);
    value.forEach((tool, index) => {
      if (!isJsonObject(tool)) throw invalidParameter(`${path}[${index}]`, 'must be an object');
      string()(tool.type, `${path}[${index}].type`);
    });
    return value as object[];
  },
  tool_choice: (value, path) => {
    if (
      (typeof value === 'string' && ['none', 'auto', 'required'].includes(value)) ||
      isJsonObject(value)
    )
      return value;
    throw invalidParameter(path, 'must be "none", "auto", "required" or an object naming a tool');
  },
  parallel_tool_calls: boolean(),
  reasoning_effort: string(),
  n: integer(1, MAX_CHOICES),
  logprobs: boolean(),
  top_logprobs: integer(0, MAX_TOP_LOGPROBS),
};

/** The top-level fields the gateway reads; ChatCompletionBodyPipe drops all others unread. */
export const CHAT_COMPLETION_FIELDS: readonly string[] = [
  'model',
  'messages',
  ...Object.keys(OPTIONAL_FIELDS),
];

/**
 * Validates a body that holds only CHAT_COMPLETION_FIELDS and is within the shape limits, and
 * returns the request the service works with. The first invalid field answers 400, named in
 * `param` as a path such as `messages[1].content`. `null` counts as absent, as OpenAI treats it.
 */
export function parseChatCompletion(body: Record<string, unknown>): CreateChatCompletionDto {
  if (typeof body.model !== 'string' || body.model.length === 0)
    throw invalidParameter('model', 'must be a non-empty string');
  const messages = body.messages;
  if (!Array.isArray(messages)) throw invalidParameter('messages', 'must be an array');
  if (messages.length === 0) throw invalidParameter('messages', 'must contain at least 1 element');
  const request: CreateChatCompletionDto = {
    model: body.model,
    messages: messages.map((message, index) => parseMessage(message, `messages[${index}]`)),
  };
  return readOptionalFields(body, OPTIONAL_FIELDS, request);
}
