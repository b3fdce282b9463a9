import { GatewayException } from '../../../common/errors/gateway.exception';
import { invalidParameter, isJsonObject } from '../../../common/validation/invalid-parameter';
import { boolean, nonEmptyString, oneOf, string } from '../../../common/validation/field-rules';
import type {
  CustomTool,
  FunctionTool,
  NamedToolChoice,
  ReasoningSettings,
  ResponseTool,
  TextFormat,
  TextSettings,
  ToolChoice,
} from '../responses.types';

/** OpenAI's limit on tool definitions in one request. */
export const MAX_TOOLS = 128;
const MAX_TOOL_NAME = 128;

/**
 * `function` and `custom` tools; any other type is a tool the provider would run itself
 * (web_search, file_search, code_interpreter, mcp, ...), which no deployment behind the gateway
 * does: 400 unsupported_tool rather than a request served without it.
 */
export function parseTools(value: unknown): ResponseTool[] {
  if (!Array.isArray(value)) throw invalidParameter('tools', 'must be an array');
  if (value.length > MAX_TOOLS)
    throw invalidParameter('tools', `must contain no more than ${MAX_TOOLS} elements`);
  const seen = new Map<string, number>();
  return value.map((tool, index) => {
    const parsed = parseTool(tool, `tools[${index}]`);
    const earlier = seen.get(parsed.name);
    if (earlier !== undefined)
      throw invalidParameter(`tools[${index}].name`, `repeats the name of tools[${earlier}]`);
    seen.set(parsed.name, index);
    return parsed;
  });
}

function parseTool(value: unknown, path: string): ResponseTool {
  if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
  const type = string()(value.type, `${path}.type`);
  const name = (): string => nonEmptyString(MAX_TOOL_NAME)(value.name, `${path}.name`);
  if (type === 'function') {
    const tool: FunctionTool = {
      type,
      name: name(),
      parameters: null,
      strict: value.strict == null ? null : boolean()(value.strict, `${path}.strict`),
    };
    if (value.description != null)
      tool.description = string()(value.description, `${path}.description`);
    if (value.parameters != null) {
      if (!isJsonObject(value.parameters))
        throw invalidParameter(`${path}.parameters`, 'must be a JSON Schema object');
      tool.parameters = value.parameters;
    }
    return tool;
  }
  if (type === 'custom') {
    const tool: CustomTool = { type, name: name() };
    if (value.description != null)
      tool.description = string()(value.description, `${path}.description`);
    if (value.format != null) tool.format = parseCustomFormat(value.format, `${path}.format`);
    return tool;
  }
  throw new GatewayException('unsupported_tool', {
    param: `${path}.type`,
    message:
      `Tool type "${type.slice(0, 64)}" is not supported: the gateway cannot run built-in tools. ` +
      'Offer a function or custom tool instead.',
  });
}

function parseCustomFormat(value: unknown, path: string): CustomTool['format'] {
  if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
  const type = oneOf(['text', 'grammar'] as const)(value.type, `${path}.type`);
  if (type === 'text') return { type };
  return {
    type,
    syntax: oneOf(['lark', 'regex'] as const)(value.syntax, `${path}.syntax`),
    definition: string()(value.definition, `${path}.definition`),
  };
}

/** Parsed after `tools`: a named choice must name one of them. */
export function parseToolChoice(value: unknown, tools: ResponseTool[]): ToolChoice {
  if (typeof value === 'string')
    return oneOf(['none', 'auto', 'required'] as const)(value, 'tool_choice');
  if (!isJsonObject(value))
    throw invalidParameter('tool_choice', 'must be "none", "auto", "required" or an object');
  const type = string()(value.type, 'tool_choice.type');
  if (type === 'function' || type === 'custom') return namedChoice(value, tools, 'tool_choice');
  if (type === 'allowed_tools') {
    const mode = oneOf(['auto', 'required'] as const)(value.mode, 'tool_choice.mode');
    if (!Array.isArray(value.tools) || value.tools.length === 0)
      throw invalidParameter('tool_choice.tools', 'must be a non-empty array');
    const allowed = value.tools.map((entry, index) => {
      const path = `tool_choice.tools[${index}]`;
      if (!isJsonObject(entry)) throw invalidParameter(path, 'must be an object');
      const entryType = string()(entry.type, `${path}.type`);
      if (entryType !== 'function' && entryType !== 'custom') throw unsupportedChoice(path);
      return namedChoice(entry, tools, path);
    });
    return { type, mode, tools: allowed };
  }
  throw unsupportedChoice('tool_choice');
}

function namedChoice(
  value: Record<string, unknown>,
  tools: ResponseTool[],
  path: string,
): NamedToolChoice {
  const type = value.type as NamedToolChoice['type'];
  const name = nonEmptyString()(value.name, `${path}.name`);
  if (!tools.some((tool) => tool.type === type && tool.name === name))
    throw invalidParameter(`${path}.name`, `names no ${type} tool in tools`);
  return { type, name };
}

function unsupportedChoice(path: string): GatewayException {
  return new GatewayException('unsupported_tool', {
    param: `${path}.type`,
    message: 'Only function and custom tools can be chosen: the gateway cannot run built-in tools.',
  });
}

export function parseText(value: unknown): TextSettings {
  if (!isJsonObject(value)) throw invalidParameter('text', 'must be an object');
  const text: TextSettings = {
    format: value.format == null ? { type: 'text' } : parseTextFormat(value.format),
  };
  if (value.verbosity !== undefined) {
    text.verbosity =
      value.verbosity === null
        ? null
        : oneOf(['low', 'medium', 'high'] as const)(value.verbosity, 'text.verbosity');
  }
  return text;
}

function parseTextFormat(value: unknown): TextFormat {
  if (!isJsonObject(value)) throw invalidParameter('text.format', 'must be an object');
  const type = oneOf(['text', 'json_object', 'json_schema'] as const)(
    value.type,
    'text.format.type',
  );
  if (type !== 'json_schema') return { type };
  if (!isJsonObject(value.schema))
    throw invalidParameter('text.format.schema', 'must be a JSON Schema object');
  const format: TextFormat = {
    type,
    name: nonEmptyString(64)(value.name, 'text.format.name'),
    schema: value.schema,
  };
  if (value.description != null)
    format.description = string()(value.description, 'text.format.description');
  if (value.strict !== undefined)
    format.strict = value.strict === null ? null : boolean()(value.strict, 'text.format.strict');
  return format;
}

export function parseReasoning(value: unknown): ReasoningSettings {
  if (!isJsonObject(value)) throw invalidParameter('reasoning', 'must be an object');
  return {
    effort: value.effort == null ? null : string(32)(value.effort, 'reasoning.effort'),
    summary:
      value.summary == null
        ? null
        : oneOf(['auto', 'concise', 'detailed'] as const)(value.summary, 'reasoning.summary'),
  };
}
