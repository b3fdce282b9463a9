import { invalidParameter } from '../../common/validation/invalid-parameter';
import type { ChatTurn, ContentPart } from '../../providers/provider-adapter.interface';
import { customCallArguments, customToolAsFunction } from './custom-tools';
import type {
  CreateResponseDto,
  FunctionTool,
  InputItem,
  MessageItem,
  ResponseTool,
  ToolChoice,
  ToolOutput,
} from './responses.types';

// A Responses request -> the chat-completions form every provider adapter translates from: turns
// and parameters by their chat-completions names. Pure: no I/O.

export interface ChatForm {
  messages: ChatTurn[];
  parameters: Record<string, unknown>;
}

/**
 * `history` is what previous_response_id stands for: the chain's input and output items, oldest
 * first. The request's `instructions` come first as a system turn; a chain's are not inherited.
 */
export function toChatForm(
  request: CreateResponseDto,
  history: readonly InputItem[] = [],
): ChatForm {
  const turns = new TurnBuilder();
  if (request.instructions) turns.push({ role: 'system', content: request.instructions });
  history.forEach((item) => turns.add(item));
  request.input.forEach((item, index) => {
    if (
      (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') &&
      !turns.callIds.has(item.call_id)
    ) {
      throw invalidParameter(
        `input[${index}].call_id`,
        'answers no function_call or custom_tool_call before it',
      );
    }
    turns.add(item);
  });
  const messages = turns.finish();
  if (!messages.some((turn) => turn.role !== 'system' && turn.role !== 'developer'))
    throw invalidParameter('input', 'must hold at least one message or tool output for the model');
  return { messages, parameters: chatParameters(request) };
}

/**
 * Items -> turns. Calls join the assistant turn right before them (a message, or other calls),
 * so parallel calls are one turn with several tool_calls, as chat providers require; images a
 * tool returned follow its results as one user turn, since a tool turn takes text only.
 */
class TurnBuilder {
  readonly callIds = new Set<string>();
  private readonly turns: ChatTurn[] = [];
  private toolImages: ContentPart[] = [];

  push(turn: ChatTurn): void {
    this.flushImages();
    this.turns.push(turn);
  }

  add(item: InputItem): void {
    switch (item.type) {
      case 'message':
        this.push({ role: item.role, content: messageContent(item) });
        return;
      case 'function_call':
      case 'custom_tool_call':
        this.callIds.add(item.call_id);
        this.addCall({
          id: item.call_id,
          type: 'function',
          function: {
            name: item.name,
            arguments:
              item.type === 'function_call' ? item.arguments : customCallArguments(item.input),
          },
        });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, images } = toolOutput(item.output);
        this.turns.push({ role: 'tool', tool_call_id: item.call_id, content: text });
        this.toolImages.push(...images);
        return;
      }
      case 'reasoning':
        // No chat provider takes reasoning items back; the call that follows stays in its turn.
        return;
    }
  }

  finish(): ChatTurn[] {
    this.flushImages();
    return this.turns;
  }

  private addCall(call: unknown): void {
    const last = this.turns[this.turns.length - 1];
    if (last?.role === 'assistant' && this.toolImages.length === 0) {
      last.tool_calls = [...(last.tool_calls ?? []), call];
      return;
    }
    this.push({ role: 'assistant', content: null, tool_calls: [call] });
  }

  private flushImages(): void {
    if (this.toolImages.length === 0) return;
    this.turns.push({ role: 'user', content: this.toolImages });
    this.toolImages = [];
  }
}

/** One text part as a plain string (what every OpenAI-compatible server takes), else parts. */
function messageContent(item: MessageItem): ChatTurn['content'] {
  const parts: ContentPart[] = item.content.map((part) => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'refusal', refusal: part.refusal };
      case 'input_image':
        return { type: 'image_url', image_url: { url: part.image_url, detail: part.detail } };
    }
  });
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

function toolOutput(output: ToolOutput): { text: string; images: ContentPart[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  let text = '';
  const images: ContentPart[] = [];
  for (const part of output) {
    if (part.type === 'input_text') text += part.text;
    else
      images.push({ type: 'image_url', image_url: { url: part.image_url, detail: part.detail } });
  }
  return { text, images };
}

/** The optional settings by their chat-completions names; `metadata` stays with the gateway. */
function chatParameters(request: CreateResponseDto): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  const offered = offeredTools(request.tools, request.tool_choice);
  // OpenAI refuses tool_choice and parallel_tool_calls without tools.
  if (offered.length > 0) {
    parameters.tools = offered.map((tool) =>
      tool.type === 'function' ? functionTool(tool) : customToolAsFunction(tool),
    );
    if (request.tool_choice !== undefined)
      parameters.tool_choice = chatToolChoice(request.tool_choice);
    if (request.parallel_tool_calls !== undefined)
      parameters.parallel_tool_calls = request.parallel_tool_calls;
  }
  if (request.max_output_tokens !== undefined)
    parameters.max_completion_tokens = request.max_output_tokens;
  if (request.temperature !== undefined) parameters.temperature = request.temperature;
  if (request.top_p !== undefined) parameters.top_p = request.top_p;
  if (request.user !== undefined) parameters.user = request.user;
  if (request.reasoning?.effort) parameters.reasoning_effort = request.reasoning.effort;
  const format = request.text?.format;
  if (format?.type === 'json_object') parameters.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    const { type, ...jsonSchema } = format;
    parameters.response_format = { type, json_schema: jsonSchema };
  }
  return parameters;
}

/** An allowed_tools choice narrows the tools offered; the model then chooses among them. */
function offeredTools(tools: ResponseTool[], choice: ToolChoice | undefined): ResponseTool[] {
  if (typeof choice !== 'object' || choice.type !== 'allowed_tools') return tools;
  return tools.filter((tool) =>
    choice.tools.some((allowed) => allowed.type === tool.type && allowed.name === tool.name),
  );
}

function chatToolChoice(choice: ToolChoice): unknown {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'allowed_tools') return choice.mode;
  // A custom tool is a function on the chat side.
  return { type: 'function', function: { name: choice.name } };
}

function functionTool(tool: FunctionTool): Record<string, unknown> {
  const definition: Record<string, unknown> = { name: tool.name };
  if (tool.description) definition.description = tool.description;
  if (tool.parameters) definition.parameters = tool.parameters;
  if (tool.strict !== null) definition.strict = tool.strict;
  return { type: 'function', function: definition };
}
