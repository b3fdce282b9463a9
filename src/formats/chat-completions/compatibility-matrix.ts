/**
 * What the gateway does with each optional field of OpenAI's chat-completions request. This table
 * is the published compatibility matrix (docs/compatibility.md, /v1/chat/completions): `required`
 * fields must be present, `pass` fields are validated and forwarded to the provider, `gateway`
 * fields are handled by the gateway itself, and `drop` fields are accepted and silently removed.
 * Fields not listed are dropped too.
 */
export const COMPATIBILITY_MATRIX = {
  model: { handling: 'required', note: 'A configured public model.' },
  messages: {
    handling: 'required',
    note: 'Non-empty, at most 10,000; each an object. `role`: `system`, `developer`, `user`, `assistant`, `tool`, or legacy `function` (with `name`). `content`: a string or a non-empty array of content parts, forwarded unchanged: `text` (every role), `image_url`, `input_audio`, `file` (user), `refusal` (assistant); `null` only on an assistant turn with `tool_calls` or `function_call`. `name`, `tool_call_id` (required on `tool`), `tool_calls`, `function_call` passed; other message fields dropped. Token estimates count strings and `text` parts.',
  },
  temperature: { handling: 'pass', note: 'number 0-2' },
  max_tokens: { handling: 'pass', note: 'integer >= 1; also used for token reservations' },
  max_completion_tokens: { handling: 'pass', note: 'integer >= 1; newer name of max_tokens' },
  top_p: { handling: 'pass', note: 'number 0-1' },
  stop: { handling: 'pass', note: 'string or up to 4 strings' },
  seed: { handling: 'pass', note: 'integer' },
  user: {
    handling: 'pass',
    note: 'string of at most 256 characters, for the provider; the end user of the usage record unless x-gateway-end-user names one',
  },
  presence_penalty: { handling: 'pass', note: 'number -2 to 2' },
  frequency_penalty: { handling: 'pass', note: 'number -2 to 2' },
  logit_bias: {
    handling: 'pass',
    note: 'object of up to 300 token ids to a bias from -100 to 100',
  },
  response_format: { handling: 'pass', note: '{type: text | json_object | json_schema, ...}' },
  tools: {
    handling: 'pass',
    note: 'up to 128 tool definitions (objects with a `type`); tool_calls are relayed back',
  },
  tool_choice: { handling: 'pass', note: 'string or object' },
  parallel_tool_calls: { handling: 'pass', note: 'boolean' },
  reasoning_effort: { handling: 'pass', note: 'string' },
  n: {
    handling: 'pass',
    note: 'integer 1-128; every choice is relayed (JSON and stream), and reserved tokens are multiplied by n. openai: passed; anthropic, gemini, mock: n > 1 answers 400 invalid_parameter',
  },
  logprobs: {
    handling: 'pass',
    note: 'boolean; choices[].logprobs relayed (JSON and stream). openai: passed; anthropic, gemini, mock: true answers 400 invalid_parameter',
  },
  top_logprobs: {
    handling: 'pass',
    note: 'integer 0-20; as logprobs (anthropic, gemini, mock: 400 when set)',
  },
  stream: { handling: 'gateway', note: 'JSON response or server-sent events' },
  stream_options: {
    handling: 'gateway',
    note: 'include_usage adds a usage chunk; the gateway always asks the provider for usage',
  },
  functions: { handling: 'drop', note: 'deprecated; use tools' },
  function_call: { handling: 'drop', note: 'deprecated; use tool_choice' },
  metadata: { handling: 'drop', note: 'provider-side storage is not used' },
  store: { handling: 'drop', note: 'provider-side storage is not used' },
  service_tier: { handling: 'drop', note: 'chosen by the deployment, not the client' },
  modalities: { handling: 'drop', note: 'text only' },
  audio: { handling: 'drop', note: 'text only' },
  prediction: { handling: 'drop', note: 'not relayed' },
  web_search_options: { handling: 'drop', note: 'not relayed' },
} as const satisfies Record<
  string,
  { handling: 'required' | 'pass' | 'gateway' | 'drop'; note: string }
>;

export const PASSTHROUGH_FIELDS = Object.entries(COMPATIBILITY_MATRIX)
  .filter(([, entry]) => entry.handling === 'pass')
  .map(([field]) => field);

/** The optional fields to forward, taken from a validated request. */
export function passthroughParameters(request: object): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const field of PASSTHROUGH_FIELDS) {
    const value = (request as Record<string, unknown>)[field];
    if (value !== undefined) parameters[field] = value;
  }
  return parameters;
}
