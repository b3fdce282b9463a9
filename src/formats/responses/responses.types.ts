// The wire types of OpenAI's Responses API as the gateway reads and writes them (the `openai`
// npm client's resources/responses types are the reference). Items are kept in the shapes the
// client sent, after validation, because stored ones are replayed and listed as they came.

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';
export type ImageDetail = 'low' | 'high' | 'auto' | 'original';

export interface InputTextPart {
  type: 'input_text';
  text: string;
}

export interface InputImagePart {
  type: 'input_image';
  /** An http(s) URL or a base64 data URL; file ids are refused (the gateway keeps no files). */
  image_url: string;
  detail: ImageDetail;
}

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: unknown[];
}

export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

export type MessagePart = InputTextPart | InputImagePart | OutputTextPart | RefusalPart;

/** A message, its content always as parts (a string content is read as one text part). */
export interface MessageItem {
  type: 'message';
  id?: string;
  role: MessageRole;
  content: MessagePart[];
  status?: ItemStatus;
}

export interface FunctionCallItem {
  type: 'function_call';
  id?: string;
  /** The upstream's tool-call id: the one a function_call_output answers. */
  call_id: string;
  name: string;
  arguments: string;
  status?: ItemStatus;
}

/** What a tool returned: a string, or text and image parts. */
export type ToolOutput = string | Array<InputTextPart | InputImagePart>;

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  id?: string;
  call_id: string;
  output: ToolOutput;
  status?: ItemStatus;
}

/** A call of a `custom` tool: its input is the raw text the model wrote (Codex's apply_patch). */
export interface CustomToolCallItem {
  type: 'custom_tool_call';
  id?: string;
  call_id: string;
  name: string;
  input: string;
}

export interface CustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  id?: string;
  call_id: string;
  output: ToolOutput;
}

/** Kept as sent (summaries, encrypted content); no provider behind the gateway takes it back. */
export interface ReasoningItem {
  type: 'reasoning';
  id?: string;
  [field: string]: unknown;
}

export type InputItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | CustomToolCallItem
  | CustomToolCallOutputItem
  | ReasoningItem;

export interface OutputMessage {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: OutputTextPart[];
}

export type OutputItem =
  | OutputMessage
  | (FunctionCallItem & { id: string; status: ItemStatus })
  | (CustomToolCallItem & { id: string });

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export type CustomToolFormat =
  { type: 'text' } | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

export interface CustomTool {
  type: 'custom';
  name: string;
  description?: string;
  format?: CustomToolFormat;
}

export type ResponseTool = FunctionTool | CustomTool;

export interface NamedToolChoice {
  type: 'function' | 'custom';
  name: string;
}

export type ToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | NamedToolChoice
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: NamedToolChoice[] };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      description?: string;
      strict?: boolean | null;
    };

export interface TextSettings {
  format: TextFormat;
  verbosity?: 'low' | 'medium' | 'high' | null;
}

export interface ReasoningSettings {
  effort: string | null;
  summary: string | null;
}

/** The body of POST /v1/responses after validation; `input` always as items. */
export interface CreateResponseDto {
  model: string;
  input: InputItem[];
  instructions?: string;
  tools: ResponseTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  text?: TextSettings;
  reasoning?: ReasoningSettings;
  stream?: boolean;
  store?: boolean;
  previous_response_id?: string;
  metadata?: Record<string, string>;
  user?: string;
  include?: string[];
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** The response object: the JSON answer, the events' `response`, and what GET returns. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  background: false;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  /**
   * The text of the output's messages, on a finished response only. The SDKs compute it from
   * `output` for a JSON answer; it is sent so that one building the response from events
   * (openai-node before its fix of issue #1662) reads it too.
   */
  output_text?: string;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: ReasoningSettings;
  store: boolean;
  temperature: number | null;
  text: TextSettings;
  tool_choice: ToolChoice;
  tools: ResponseTool[];
  top_p: number | null;
  truncation: 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}
