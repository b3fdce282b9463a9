import type { CustomTool, ResponseTool } from './responses.types';

// A `custom` tool takes free text (Codex's apply_patch takes a patch), which no chat-completions
// provider can offer. It is offered as a function with one string parameter, `input`, and a call
// of that function comes back as a custom_tool_call carrying the string itself.

const INPUT_PARAMETERS = {
  type: 'object',
  properties: {
    input: { type: 'string', description: 'The raw input for the tool, exactly as it takes it.' },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

/** The function a custom tool is offered as; its format is told in the description. */
export function customToolAsFunction(tool: CustomTool): Record<string, unknown> {
  const notes = ['Pass the raw input text as the `input` string argument.'];
  if (tool.format?.type === 'grammar') {
    notes.push(
      `The input must match this ${tool.format.syntax} grammar:\n${tool.format.definition}`,
    );
  }
  const description = tool.description
    ? `${tool.description}\n\n${notes.join('\n')}`
    : notes.join('\n');
  return {
    type: 'function',
    function: { name: tool.name, description, parameters: INPUT_PARAMETERS },
  };
}

/** A custom call replayed to a provider: the function arguments it would have sent. */
export function customCallArguments(input: string): string {
  return JSON.stringify({ input });
}

/**
 * The raw input from the function arguments a provider sent. A model that wrote the text itself
 * instead of a JSON object keeps its text, rather than losing the call.
 */
export function customCallInput(argumentsText: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (
      parsed &&
      typeof parsed === 'object' &&
      typeof (parsed as { input?: unknown }).input === 'string'
    )
      return (parsed as { input: string }).input;
  } catch {
    // Not JSON: the text is the input.
  }
  return argumentsText;
}

/** The names of the custom tools, to tell their calls from function calls in an answer. */
export function customToolNames(tools: readonly ResponseTool[]): ReadonlySet<string> {
  return new Set(tools.filter((tool) => tool.type === 'custom').map((tool) => tool.name));
}
