import { endUserId } from '../../../common/validation/end-user';
import { invalidParameter, isJsonObject } from '../../../common/validation/invalid-parameter';
import {
  boolean,
  integer,
  MAX_COMPLETION_TOKENS,
  nonEmptyString,
  number,
  readOptionalFields,
  type Rule,
  string,
} from '../../../common/validation/field-rules';
import type { CreateResponseDto } from '../responses.types';
import { parseInput } from './input-item.dto';
import { parseReasoning, parseText, parseToolChoice, parseTools } from './response-tool.dto';

/** OpenAI's documented metadata limits. */
export const MAX_METADATA_KEYS = 16;
export const MAX_METADATA_KEY = 64;
export const MAX_METADATA_VALUE = 512;

type OptionalField = Exclude<keyof CreateResponseDto, 'model' | 'input' | 'tools' | 'tool_choice'>;

/** How each optional field is checked, in the order errors are reported. */
const OPTIONAL_FIELDS: { [F in OptionalField]-?: Rule<NonNullable<CreateResponseDto[F]>> } = {
  instructions: string(),
  parallel_tool_calls: boolean(),
  max_output_tokens: integer(1, MAX_COMPLETION_TOKENS),
  temperature: number(0, 2),
  top_p: number(0, 1),
  text: (value) => parseText(value),
  reasoning: (value) => parseReasoning(value),
  stream: boolean(),
  store: boolean(),
  previous_response_id: nonEmptyString(256),
  metadata: (value, path) => {
    if (!isJsonObject(value)) throw invalidParameter(path, 'must be an object');
    const entries = Object.entries(value);
    if (entries.length > MAX_METADATA_KEYS)
      throw invalidParameter(path, `must have at most ${MAX_METADATA_KEYS} keys`);
    for (const [key, entry] of entries) {
      if (key.length > MAX_METADATA_KEY)
        throw invalidParameter(path, `keys must be at most ${MAX_METADATA_KEY} characters`);
      string(MAX_METADATA_VALUE)(entry, `${path}.${key}`);
    }
    return value as Record<string, string>;
  },
  user: endUserId,
  include: (value, path) => {
    if (!Array.isArray(value)) throw invalidParameter(path, 'must be an array of strings');
    return value.map((entry, index) => string(128)(entry, `${path}[${index}]`));
  },
};

/** The top-level fields the gateway reads; the body pipe drops all others unread. */
export const RESPONSE_FIELDS: readonly string[] = [
  'model',
  'input',
  'tools',
  'tool_choice',
  ...Object.keys(OPTIONAL_FIELDS),
];

/**
 * Validates a body that holds only RESPONSE_FIELDS and is within the shape limits. The first
 * invalid field answers 400 naming it in `param` (`input[2].content[0].image_url`); `null` counts
 * as absent, as OpenAI treats it.
 */
export function parseCreateResponse(body: Record<string, unknown>): CreateResponseDto {
  const model = nonEmptyString()(body.model, 'model');
  if (body.input == null) throw invalidParameter('input', 'must be a string or an array of items');
  const request: CreateResponseDto = {
    model,
    input: parseInput(body.input),
    tools: body.tools == null ? [] : parseTools(body.tools),
  };
  if (body.tool_choice != null)
    request.tool_choice = parseToolChoice(body.tool_choice, request.tools);
  return readOptionalFields(body, OPTIONAL_FIELDS, request);
}
