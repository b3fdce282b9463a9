import { DEFAULT_PAGE_SIZE } from '../formats/responses/store/input-items-page';
import { END_USER_PARAMETER } from './chat-completion.schemas';
import {
  body,
  gatewayErrors as errors,
  json,
  modelCallResponses,
  object,
  pathParam,
  publicOperation,
  ref,
} from './schema-helpers';

// /v1/responses and the stored responses' routes in the OpenAPI document (docs/responses.md).

const string = { type: 'string' };
const tokens = { type: 'integer', minimum: 0 };
const event = (types: string[], properties: Record<string, unknown>) =>
  object({ type: { enum: types }, sequence_number: tokens, ...properties }, [
    'type',
    'sequence_number',
    ...Object.keys(properties),
  ]);
const inItem = { item_id: string, output_index: tokens };
const inPart = { ...inItem, content_index: tokens };

/** The schemas of the answers of the routes below besides the response object itself. */
export const RESPONSE_ANSWER_SCHEMAS = {
  ResponseStreamEvent: {
    description:
      'The `data:` of one event of a stream (text/event-stream); its `type` is the `event:` name, and `sequence_number` counts from 0 up by one.',
    oneOf: [
      event(
        [
          'response.created',
          'response.in_progress',
          'response.completed',
          'response.incomplete',
          'response.failed',
        ],
        { response: ref('ResponseObject') },
      ),
      event(['response.output_item.added', 'response.output_item.done'], {
        output_index: tokens,
        item: ref('ResponseOutputItem'),
      }),
      event(['response.content_part.added', 'response.content_part.done'], {
        ...inPart,
        part: ref('ResponseOutputText'),
      }),
      event(['response.output_text.delta'], {
        ...inPart,
        delta: string,
        logprobs: { type: 'array' },
      }),
      event(['response.output_text.done'], {
        ...inPart,
        text: string,
        logprobs: { type: 'array' },
      }),
      event(['response.function_call_arguments.delta', 'response.custom_tool_call_input.delta'], {
        ...inItem,
        delta: string,
      }),
      event(['response.function_call_arguments.done'], {
        ...inItem,
        name: string,
        arguments: string,
      }),
      event(['response.custom_tool_call_input.done'], { ...inItem, input: string }),
    ],
  },
  ResponseInputItemList: object(
    {
      object: { const: 'list' },
      data: {
        type: 'array',
        items: { allOf: [ref('ResponseInputItem'), { required: ['id'] }] },
      },
      first_id: { type: ['string', 'null'] },
      last_id: { type: ['string', 'null'] },
      has_more: { type: 'boolean' },
    },
    ['object', 'data', 'first_id', 'last_id', 'has_more'],
  ),
  ResponseDeleted: object({ id: string, object: { const: 'response' }, deleted: { const: true } }, [
    'id',
    'object',
    'deleted',
  ]),
};

const responseId = [pathParam('id', 'A response id (`resp_...`) created with this key.')];
/** The stored responses' routes: 404 for another key's, an expired or a deleted response. */
const stored = <Details extends object>(operationId: string, summary: string, details: Details) =>
  publicOperation(operationId, summary, { parameters: responseId, ...details });

export const RESPONSES_PATHS = {
  '/v1/responses': {
    post: publicOperation(
      'createResponse',
      "OpenAI's Responses API: a response as JSON, or its events with `stream: true` (docs/responses.md). Stored by default, before the answer ends.",
      {
        parameters: [END_USER_PARAMETER],
        requestBody: body('CreateResponseRequest'),
        responses: modelCallResponses(
          'A response, or with `stream: true` its events, response.created ... response.completed (or .incomplete, .failed).',
          'ResponseObject',
          'ResponseStreamEvent',
        ),
      },
    ),
  },
  '/v1/responses/{id}': {
    get: stored('retrieveResponse', 'A stored response, as it was answered.', {
      responses: {
        '200': { description: 'The response.', ...json(ref('ResponseObject')) },
        ...errors(401, 404, 429, 503),
      },
    }),
    delete: stored('deleteResponse', 'Delete a stored response.', {
      responses: {
        '200': { description: 'Deleted.', ...json(ref('ResponseDeleted')) },
        ...errors(401, 404, 429, 503),
      },
    }),
  },
  '/v1/responses/{id}/input_items': {
    get: stored(
      'listResponseInputItems',
      "The input items a stored response was given (not its chain's), in OpenAI's list shape.",
      {
        parameters: [
          ...responseId,
          {
            name: 'order',
            in: 'query',
            description: '`desc`: the last item given first.',
            schema: { enum: ['asc', 'desc'], default: 'desc' },
          },
          {
            name: 'after',
            in: 'query',
            description: 'The id of the item the page starts after, in that order.',
            schema: string,
          },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_PAGE_SIZE },
          },
          {
            name: 'include',
            in: 'query',
            description: 'Accepted and ignored: stored items are returned whole.',
            schema: string,
          },
        ],
        responses: {
          '200': { description: 'One page of items.', ...json(ref('ResponseInputItemList')) },
          ...errors(400, 401, 404, 429, 503),
        },
      },
    ),
  },
};
