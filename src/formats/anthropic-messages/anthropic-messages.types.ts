// Anthropic's Messages API on the wire (POST /v1/messages), as far as the gateway reads or writes
// it. Request types describe a body after validation (dto/create-message.dto.ts); fields the
// gateway does not read are kept on the object for pass-through and are not listed here.

export interface CacheControl {
  type: string;
  ttl?: string;
}

export interface TextBlockParam {
  type: 'text';
  text: string;
  cache_control?: CacheControl | null;
}

export type ImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface ImageBlockParam {
  type: 'image';
  source: ImageSource;
}

export type DocumentSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'text'; media_type?: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'content'; content: string | Array<TextBlockParam | ImageBlockParam> }
  | { type: 'file'; file_id: string };

export interface DocumentBlockParam {
  type: 'document';
  source: DocumentSource;
  title?: string | null;
  context?: string | null;
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ContentBlockParam[] | null;
  is_error?: boolean | null;
}

export interface ThinkingBlockParam {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

export interface RedactedThinkingBlockParam {
  type: 'redacted_thinking';
  data: string;
}

/** A block the gateway passes through but does not translate (server tool results, ...). */
export interface OtherBlockParam {
  type: string;
}

export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | OtherBlockParam;

export type MessageRole = 'user' | 'assistant' | 'system';

export interface MessageParam {
  role: MessageRole;
  content: string | ContentBlockParam[];
}

/** A custom tool has an `input_schema` and no `type` (or `custom`); server tools have a `type`. */
export interface ToolParam {
  name: string;
  type?: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoiceParam =
  | { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface ThinkingParam {
  type: string;
  budget_tokens?: number;
}

/** A validated request body. It is the client's own object: pass-through sends it on as is. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[] | null;
  stop_sequences?: string[] | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  metadata?: { user_id?: string | null } | null;
  tools?: ToolParam[] | null;
  tool_choice?: ToolChoiceParam | null;
  thinking?: ThinkingParam | null;
  stream?: boolean | null;
}

/** POST /v1/messages/count_tokens takes the same body without `max_tokens`. */
export type CountTokensRequest = Omit<MessagesRequest, 'max_tokens'> & { max_tokens?: number };

export type StopReason =
  'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'pause_turn';

export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type ResponseContentBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ResponseContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessageUsage;
}

/** Anthropic's error `type` values (https://docs.claude.com/en/api/errors). */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
  request_id: string;
}
