/**
 * What POST /v1/messages does with each field of Anthropic's Messages API when the deployment is
 * not Anthropic's (docs/compatibility.md, /v1/messages). An Anthropic deployment gets
 * every field as sent, `model` replaced by its own. `required`: must be present; `translated`:
 * validated and sent in the chat-completions form (anthropic-messages.request.ts); `gateway`:
 * handled by the gateway; `dropped`: not sent to a translated deployment. Fields not listed are
 * dropped too, and never an error. Tests keep this table, the published one and the fields the
 * body validation reads (dto/create-message.dto.ts) in step.
 */
export const MESSAGES_COMPATIBILITY = {
  model: {
    handling: 'required',
    note: 'A public model or an alias; the answer names the model sent.',
  },
  max_tokens: {
    handling: 'required',
    note: 'integer >= 1; sent as `max_completion_tokens`; also the token reservation',
  },
  messages: {
    handling: 'translated',
    note: "Non-empty. `role` `user`, `assistant` or `system` (a system message in place). Blocks: `text`; `image` (base64 as a data URL, `url` as is) as image parts; `document`: a PDF as a `file` part, `text` as text headed by its `title`, `content` as its blocks; `tool_use` as the assistant's `tool_calls` and `tool_result` as `tool` messages right after it, ids and order kept, text and images beside or inside a result as a user message after them, `is_error` dropped. Dropped: `thinking`, `redacted_thinking`, `cache_control`, `citations` and block types without a chat form (server tool results, search results). A document or image by URL or `file_id` with no chat form answers 400 when the model has a deployment that is not Anthropic's.",
  },
  system: {
    handling: 'translated',
    note: 'string or text blocks: one system message first, the blocks joined by blank lines',
  },
  stop_sequences: { handling: 'translated', note: 'sent as the `stop` field' },
  temperature: { handling: 'translated', note: 'number 0-1' },
  top_p: { handling: 'translated', note: 'number 0-1' },
  top_k: {
    handling: 'translated',
    note: 'integer >= 0. gemini: `topK`; openai: dropped (OpenAI has none); mock: ignored',
  },
  metadata: {
    handling: 'translated',
    note: 'its user_id (at most 256 characters) sent as the `user` field; the end user of the usage record unless x-gateway-end-user names one',
  },
  tools: {
    handling: 'translated',
    note: 'custom tools (`input_schema`) as function tools, `strict` kept; server tools (a `type` such as `web_search_20250305`) dropped',
  },
  tool_choice: {
    handling: 'translated',
    note: 'type auto, any (sent as `required`), tool (the named function) or none; `disable_parallel_tool_use` as `parallel_tool_calls: false`; dropped without a custom tool',
  },
  thinking: {
    handling: 'dropped',
    note: 'validated (`enabled` needs `budget_tokens`; `adaptive`, `disabled` and later types pass)',
  },
  stream: { handling: 'gateway', note: 'JSON answer or Anthropic events' },
  cache_control: { handling: 'dropped', note: "prompt caching is the provider's own" },
  context_management: { handling: 'dropped', note: 'Anthropic only' },
  container: { handling: 'dropped', note: 'Anthropic only' },
  mcp_servers: { handling: 'dropped', note: 'Anthropic only' },
  output_config: { handling: 'dropped', note: 'Anthropic only' },
  service_tier: { handling: 'dropped', note: 'chosen by the deployment' },
  inference_geo: { handling: 'dropped', note: 'chosen by the deployment' },
} as const satisfies Record<
  string,
  { handling: 'required' | 'translated' | 'gateway' | 'dropped'; note: string }
>;
