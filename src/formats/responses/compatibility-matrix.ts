/**
 * What the gateway does with each field of a POST /v1/responses body: the published table
 * (docs/compatibility.md, /v1/responses). `required` fields must be present; `translated`
 * fields are validated and mapped to the provider's request; `gateway` fields are handled by the
 * gateway itself; `refused` fields answer 400, because serving the request without them would
 * lose what they stand for; `drop` fields are accepted and removed. Fields not listed are dropped
 * too. A test keeps this table, the body parser and the docs in step.
 */
export const RESPONSES_COMPATIBILITY = {
  model: {
    handling: 'required',
    note: 'A configured public model or alias; the answer echoes the name sent.',
  },
  input: {
    handling: 'required',
    note: 'A string (one user message) or items: `message` (roles `user`, `assistant`, `system`, `developer`; parts `input_text`, `input_image` with an http(s) or data URL, `output_text`, `refusal`), `function_call`, `function_call_output`, `custom_tool_call`, `custom_tool_call_output` (an output is a string or `input_text` and `input_image` parts), `reasoning` (stored, never sent: no provider behind the gateway takes it back). `input_file`, `input_audio`, images by `file_id` and `item_reference` answer 400.',
  },
  instructions: {
    handling: 'translated',
    note: 'string; the first system turn. Not inherited through previous_response_id.',
  },
  tools: {
    handling: 'translated',
    note: 'up to 128. `function` (name, description, parameters, strict) as a chat tool; `custom` (format text or grammar) as a function with one string parameter `input`, its calls answered as `custom_tool_call` items with that string. Any other type (web_search, file_search, code_interpreter, computer_use_preview, image_generation, mcp, ...) answers 400 unsupported_tool.',
  },
  tool_choice: {
    handling: 'translated',
    note: 'One of `none`, `auto`, `required`, `{type: function | custom, name}` of a tool in `tools`; `allowed_tools` narrows the tools offered and uses its mode. Built-in tool types answer 400 unsupported_tool.',
  },
  parallel_tool_calls: { handling: 'translated', note: 'boolean; sent only with tools' },
  max_output_tokens: {
    handling: 'translated',
    note: 'integer >= 1, as max_completion_tokens; also used for token reservations. A cut answer is `incomplete` with reason `max_output_tokens`.',
  },
  temperature: { handling: 'translated', note: 'number 0-2' },
  top_p: { handling: 'translated', note: 'number 0-1' },
  text: {
    handling: 'translated',
    note: 'Its `format`: `text` (default), `json_object`, `json_schema` (name, schema, description, strict) as response_format; `verbosity` echoed, not sent.',
  },
  reasoning: {
    handling: 'translated',
    note: 'Its `effort` as reasoning_effort (openai deployments take it; anthropic, gemini and mock ones ignore it); `summary` echoed.',
  },
  user: {
    handling: 'translated',
    note: 'string of at most 256 characters, sent as the `user` field; the end user of the usage record unless x-gateway-end-user names one',
  },
  stream: { handling: 'gateway', note: 'Responses events (server-sent events) or one JSON object' },
  store: {
    handling: 'gateway',
    note: 'default true: the response is stored before response.completed or the JSON answer. 400 store_disabled with RESPONSES_STORE=off.',
  },
  previous_response_id: {
    handling: 'gateway',
    note: "the stored chain's input and output items go before `input`; any response of the chain gone is 404 response_not_found. 400 store_disabled with RESPONSES_STORE=off.",
  },
  metadata: {
    handling: 'gateway',
    note: 'up to 16 string values (keys up to 64, values up to 512 characters); stored and echoed, not sent',
  },
  include: {
    handling: 'gateway',
    note: 'array of strings, accepted; nothing it names (encrypted reasoning, logprobs, search results) is produced',
  },
  conversation: {
    handling: 'refused',
    note: 'OpenAI-hosted conversations: continue with previous_response_id or send the whole input instead',
  },
  prompt: { handling: 'refused', note: 'OpenAI-hosted prompt templates' },
  background: { handling: 'drop', note: 'the request is answered in the foreground' },
  truncation: {
    handling: 'drop',
    note: 'never truncated: an input too long for the model answers 400 context_length_exceeded',
  },
  max_tool_calls: { handling: 'drop', note: 'the gateway runs no tools' },
  top_logprobs: { handling: 'drop', note: 'logprobs are not produced' },
  service_tier: { handling: 'drop', note: 'chosen by the deployment, not the client' },
  safety_identifier: { handling: 'drop', note: 'not relayed' },
  prompt_cache_key: { handling: 'drop', note: 'not relayed (Codex sends it)' },
  prompt_cache_retention: { handling: 'drop', note: 'not relayed' },
  stream_options: { handling: 'drop', note: 'no obfuscation field is sent' },
  context_management: { handling: 'drop', note: 'not relayed' },
} as const satisfies Record<
  string,
  { handling: 'required' | 'translated' | 'gateway' | 'refused' | 'drop'; note: string }
>;

/** Fields answered with 400 invalid_parameter when present (not null). */
export const REFUSED_FIELDS = Object.entries(RESPONSES_COMPATIBILITY)
  .filter(([, entry]) => entry.handling === 'refused')
  .map(([field]) => field);
