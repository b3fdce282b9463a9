import type { ChatTurn, ContentPart } from '../../providers/provider-adapter.interface';
import type {
  ContentBlockParam,
  CountTokensRequest,
  DocumentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolChoiceParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from './anthropic-messages.types';

// A Messages API body -> the canonical conversation (OpenAI chat turns and parameter names), for
// deployments that do not speak Anthropic's format. Pure: no I/O. What cannot be said in the
// chat form is dropped (thinking blocks, cache_control, server tools, block types the API added
// that the gateway does not know), as listed in docs/messages.md; what it would have to invent
// is reported in `untranslatable` instead (a document by URL or file id), for the caller to
// refuse when a translated deployment could serve the request.

export interface TranslatedRequest {
  messages: ChatTurn[];
  parameters: Record<string, unknown>;
  /** Fields that have no chat-completions form: where, and why. */
  untranslatable: Untranslatable[];
}

export interface Untranslatable {
  path: string;
  problem: string;
}

export function toChatRequest(body: CountTokensRequest): TranslatedRequest {
  const untranslatable: Untranslatable[] = [];
  const messages: ChatTurn[] = [];
  const system = systemText(body.system);
  if (system !== undefined) messages.push({ role: 'system', content: system });
  body.messages.forEach((message, index) =>
    messages.push(...toTurns(message, `messages.${index}`, untranslatable)),
  );
  return { messages, parameters: toParameters(body), untranslatable };
}

/** System blocks become one system message, their texts joined by blank lines. */
function systemText(system: string | TextBlockParam[] | null | undefined): string | undefined {
  if (system == null) return undefined;
  if (typeof system === 'string') return system;
  return system.length > 0 ? system.map((block) => block.text).join('\n\n') : undefined;
}

function toTurns(
  message: MessageParam,
  path: string,
  untranslatable: Untranslatable[],
): ChatTurn[] {
  if (message.role === 'system')
    return [
      { role: 'system', content: systemText(message.content as string | TextBlockParam[]) ?? '' },
    ];
  if (typeof message.content === 'string')
    return [{ role: message.role, content: message.content }];
  if (message.role === 'assistant') {
    const turn = assistantTurn(message.content);
    return turn ? [turn] : [];
  }
  return userTurns(message.content, `${path}.content`, untranslatable);
}

/** Text blocks joined as the content, tool_use blocks as tool calls in order; thinking dropped. */
function assistantTurn(blocks: ContentBlockParam[]): ChatTurn | undefined {
  let text: string | undefined;
  const calls: unknown[] = [];
  for (const block of blocks) {
    if (block.type === 'text') text = (text ?? '') + (block as TextBlockParam).text;
    else if (block.type === 'tool_use') {
      const use = block as ToolUseBlockParam;
      calls.push({
        id: use.id,
        type: 'function',
        function: { name: use.name, arguments: JSON.stringify(use.input) },
      });
    }
  }
  if (text === undefined && calls.length === 0) return undefined;
  const turn: ChatTurn = { role: 'assistant', content: text ?? null };
  if (calls.length > 0) turn.tool_calls = calls;
  return turn;
}

/**
 * A user message's tool_result blocks become tool turns, in order and first, as the chat form
 * wants them right after the assistant's calls; the blocks beside them (text, images,
 * documents) follow as one user turn. Images and documents inside a tool result, which a tool
 * turn cannot hold, open that user turn.
 */
function userTurns(
  blocks: ContentBlockParam[],
  path: string,
  untranslatable: Untranslatable[],
): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const fromResults: ContentPart[] = [];
  const parts: ContentPart[] = [];
  blocks.forEach((block, index) => {
    const at = `${path}.${index}`;
    if (block.type !== 'tool_result') return parts.push(...toParts(block, at, untranslatable));
    const result = block as ToolResultBlockParam;
    const content = result.content ?? '';
    if (typeof content === 'string')
      return turns.push({ role: 'tool', tool_call_id: result.tool_use_id, content });
    let text = '';
    content.forEach((inner, innerIndex) => {
      if (inner.type === 'text') text += (inner as TextBlockParam).text;
      else fromResults.push(...toParts(inner, `${at}.content.${innerIndex}`, untranslatable));
    });
    turns.push({ role: 'tool', tool_call_id: result.tool_use_id, content: text });
  });
  const all = fromResults.concat(parts);
  if (all.length > 0)
    turns.push({
      role: 'user',
      content: all.length === 1 && all[0].type === 'text' ? all[0].text : all,
    });
  return turns;
}

function toParts(
  block: ContentBlockParam,
  path: string,
  untranslatable: Untranslatable[],
): ContentPart[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: (block as TextBlockParam).text }];
    case 'image':
      return imagePart(block as ImageBlockParam, path, untranslatable);
    case 'document':
      return documentParts(block as DocumentBlockParam, path, untranslatable);
    default:
      // thinking, redacted_thinking and block types without a chat form.
      return [];
  }
}

function imagePart(
  block: ImageBlockParam,
  path: string,
  untranslatable: Untranslatable[],
): ContentPart[] {
  const { source } = block;
  if (source.type === 'base64')
    return [
      { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } },
    ];
  if (source.type === 'url') return [{ type: 'image_url', image_url: { url: source.url } }];
  untranslatable.push({
    path: `${path}.source`,
    problem: 'an image by file_id can only be sent to an Anthropic deployment',
  });
  return [];
}

/**
 * A PDF becomes a `file` part (OpenAI reads it; see docs/messages.md for the others), plain
 * text a text part headed by its title, and content-sourced documents their own blocks.
 */
function documentParts(
  block: DocumentBlockParam,
  path: string,
  untranslatable: Untranslatable[],
): ContentPart[] {
  const { source } = block;
  switch (source.type) {
    case 'base64':
      return [
        {
          type: 'file',
          file: {
            filename: block.title || 'document.pdf',
            file_data: `data:${source.media_type};base64,${source.data}`,
          },
        },
      ];
    case 'text':
      return [
        { type: 'text', text: block.title ? `${block.title}\n\n${source.data}` : source.data },
      ];
    case 'content':
      if (typeof source.content === 'string') return [{ type: 'text', text: source.content }];
      return source.content.flatMap((inner, index) =>
        toParts(inner, `${path}.source.content.${index}`, untranslatable),
      );
    default:
      untranslatable.push({
        path: `${path}.source`,
        problem: `a document by ${source.type === 'url' ? 'URL' : 'file_id'} can only be sent to an Anthropic deployment`,
      });
      return [];
  }
}

function toParameters(body: CountTokensRequest): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  // Anthropic's cap counts every generated token, thinking included: OpenAI's newer name.
  if (body.max_tokens != null) parameters.max_completion_tokens = body.max_tokens;
  if (body.temperature != null) parameters.temperature = body.temperature;
  if (body.top_p != null) parameters.top_p = body.top_p;
  // Only some targets sample by top-k; each adapter sends or leaves it (docs/messages.md).
  if (body.top_k != null) parameters.top_k = body.top_k;
  if (body.stop_sequences != null && body.stop_sequences.length > 0)
    parameters.stop = body.stop_sequences;
  const user = body.metadata?.user_id;
  if (typeof user === 'string' && user.length > 0) parameters.user = user;
  const tools = (body.tools ?? [])
    .filter((tool) => tool.type == null || tool.type === 'custom')
    .map((tool) => ({
      type: 'function',
      function: Object.assign(
        { name: tool.name },
        tool.description !== undefined ? { description: tool.description } : {},
        { parameters: tool.input_schema },
        tool.strict != null ? { strict: tool.strict } : {},
      ),
    }));
  // Without a custom tool there is nothing to choose (server tools are Anthropic's own).
  if (tools.length > 0) {
    parameters.tools = tools;
    if (body.tool_choice) Object.assign(parameters, toolChoice(body.tool_choice));
  }
  return parameters;
}

const TOOL_CHOICES = { auto: 'auto', any: 'required', none: 'none' } as const;

function toolChoice(choice: ToolChoiceParam): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  if (choice.type === 'tool')
    mapped.tool_choice = { type: 'function', function: { name: choice.name } };
  else mapped.tool_choice = TOOL_CHOICES[choice.type];
  if (choice.disable_parallel_tool_use === true && choice.type !== 'none')
    mapped.parallel_tool_calls = false;
  return mapped;
}
