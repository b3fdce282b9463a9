import { GATEWAY_ERRORS } from '../common/errors/gateway-error-code';

// Building blocks of the OpenAPI document, shared by its per-format files.

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** The request parsers read null as absent, as OpenAI does; the schemas say so. */
export const nullable = (schema: Record<string, unknown>) => ({
  anyOf: [schema, { type: 'null' }],
});

/** A /v1 operation: in the `public` tag, authenticated with a virtual key. */
export const publicOperation = <Details extends object>(
  operationId: string,
  summary: string,
  details: Details,
) => ({ tags: ['public'], operationId, summary, security: [{ virtualKey: [] }], ...details });

/** A required JSON request body of the named schema. */
export const body = (name: string) => ({ required: true, ...json(ref(name)) });

/** An object schema with these properties, of which `required` must be present. */
export const object = <Properties extends Record<string, unknown>>(
  properties: Properties,
  required: string[] = [],
) => ({
  type: 'object',
  ...(required.length > 0 ? { required } : {}),
  properties,
});

/** Responses in OpenAI's error envelope, each listing the gateway's codes of its status. */
export const gatewayErrors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => {
      const codes = Object.entries(GATEWAY_ERRORS)
        .filter(([, entry]) => entry.status === status)
        .map(([code]) => `\`${code}\``);
      return [
        String(status),
        { description: `Error: ${codes.join(', ')}`, ...json(ref('ErrorEnvelope')) },
      ];
    }),
  );

/** The statuses a model call (chat completion, response) can answer with. */
const MODEL_CALL_ERRORS = [
  400, 401, 403, 404, 408, 413, 415, 417, 429, 431, 500, 502, 503, 504,
] as const;

const COST_HEADER = {
  'x-gateway-cost-usd': {
    description:
      "JSON answers from a deployment with a `price`: the request's exact cost in US dollars, as a decimal string. Streams record their cost in the usage record instead (docs/spend.md).",
    schema: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
  },
};

/**
 * The answers of a model call (chat completion, response): the named JSON schema, or with
 * `stream: true` events of the named schema; its errors in OpenAI's envelope.
 */
export const modelCallResponses = (description: string, answer: string, event: string) => ({
  '200': {
    description,
    headers: COST_HEADER,
    content: {
      'application/json': { schema: ref(answer) },
      'text/event-stream': { schema: ref(event) },
    },
  },
  ...gatewayErrors(...MODEL_CALL_ERRORS),
});

/** A path parameter, required as every path parameter is. */
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
