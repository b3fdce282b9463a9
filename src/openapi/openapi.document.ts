import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUDGET_USD_PATTERN, MAX_BUDGET_USD } from '../common/money/price';
import { BUDGET_PERIODS } from '../common/time/budget-period';
import { CHAT_COMPLETION_PATHS, CHAT_COMPLETION_SCHEMAS } from './chat-completion.schemas';
import { EMBEDDINGS_PATHS, EMBEDDINGS_SCHEMAS } from './embeddings.schemas';
import { MESSAGES_PATHS, MESSAGES_SCHEMAS } from './messages.schemas';
import { RESPONSE_ANSWER_SCHEMAS, RESPONSES_PATHS } from './responses.paths';
import { RESPONSES_SCHEMAS } from './responses.schemas';
import { SPEND_GROUPS } from '../usage/spend-report.service';
import { gatewayErrors as errors, json, pathParam, publicOperation, ref } from './schema-helpers';

// package.json sits two levels up from both src/openapi and dist/openapi (and in the Docker image).
const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

const USD_BUDGET = {
  type: ['string', 'null'],
  pattern: BUDGET_USD_PATTERN.source,
  description: `US dollars per budget_period as a decimal string (at most 6 decimal places, above 0, at most ${MAX_BUDGET_USD}); see docs/spend.md.`,
};
const adminKeyBody = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    rpm_limit: { type: ['integer', 'null'], minimum: 0 },
    tpm_limit: { type: ['integer', 'null'], minimum: 0 },
    token_budget: { type: ['integer', 'null'], minimum: 0 },
    budget_usd: USD_BUDGET,
    budget_period: { type: ['string', 'null'], enum: [...BUDGET_PERIODS, null] },
    team_id: {
      type: ['string', 'null'],
      format: 'uuid',
      description: 'The team whose budgets and allow-list apply too; null leaves the team.',
    },
    allowed_models: { type: ['array', 'null'], items: { type: 'string' } },
  },
};
const adminTeamBody = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    budget_usd: USD_BUDGET,
    token_budget: { type: ['integer', 'null'], minimum: 1 },
    budget_period: { type: ['string', 'null'], enum: [...BUDGET_PERIODS, null] },
    allowed_models: { type: ['array', 'null'], items: { type: 'string' } },
  },
};
const teamIdParam = [pathParam('id', 'Team id or name.')];
const idParam = [pathParam('id', 'Key id or name.')];
const admin = (summary: string, extra: object = {}) => ({
  tags: ['admin'],
  summary,
  security: [{ adminKey: [] }],
  responses: {
    '200': { description: 'OK', ...json({ type: 'object' }) },
    ...errors(401, 403, 404, 429),
  },
  ...extra,
});

/**
 * The OpenAPI 3.1 document served at GET /openapi.json. The public /v1 operations carry full
 * schemas (kept in step with the request parser by openapi.document.spec.ts); the admin API is
 * listed under the `admin` tag with its parameters and bodies, its full reference being docs/admin-api.md.
 */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'LLM gateway',
    version: VERSION,
    description:
      'An OpenAI-compatible gateway: virtual keys, rate limits, routing to provider deployments.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  tags: [
    { name: 'public', description: 'The OpenAI-compatible API, authenticated with a virtual key.' },
    {
      name: 'admin',
      description:
        'Key management, usage and config reload; authenticated with ADMIN_API_KEY. Answers 404 while ADMIN_API_KEY is unset.',
    },
  ],
  paths: {
    ...CHAT_COMPLETION_PATHS,
    ...MESSAGES_PATHS,
    ...RESPONSES_PATHS,
    ...EMBEDDINGS_PATHS,
    '/v1/models': {
      get: publicOperation('listModels', 'The public models this virtual key may use.', {
        responses: {
          '200': { description: 'The models.', ...json(ref('ModelList')) },
          ...errors(401, 503),
        },
      }),
    },
    '/v1/models/{model}': {
      get: publicOperation(
        'retrieveModel',
        'One public model, if this virtual key may use it (404 otherwise).',
        {
          parameters: [pathParam('model', 'A public model name (URL-encoded).')],
          responses: {
            '200': { description: 'The model.', ...json(ref('Model')) },
            ...errors(401, 404, 503),
          },
        },
      ),
    },
    '/admin/keys': {
      post: admin('Create a virtual key; the answer holds its secret, shown once.', {
        operationId: 'createKey',
        requestBody: { required: true, ...json({ ...adminKeyBody, required: ['name'] }) },
        responses: {
          '201': { description: 'Created', ...json({ type: 'object' }) },
          ...errors(400, 401, 409, 429),
        },
      }),
      get: admin('List keys (without secrets).', { operationId: 'listKeys' }),
    },
    '/admin/keys/{id}': {
      get: admin('Show one key.', { operationId: 'getKey', parameters: idParam }),
      patch: admin("Change a key's settings.", {
        operationId: 'updateKey',
        parameters: idParam,
        requestBody: { required: true, ...json(adminKeyBody) },
      }),
    },
    '/admin/keys/{id}/rotate': {
      post: admin('New secret; the old one stays valid for a grace period.', {
        operationId: 'rotateKey',
        parameters: idParam,
        requestBody: {
          required: false,
          ...json({
            type: 'object',
            properties: { grace_seconds: { type: 'integer', minimum: 0 } },
          }),
        },
      }),
    },
    '/admin/keys/{id}/revoke': {
      post: admin('Revoke a key.', { operationId: 'revokeKey', parameters: idParam }),
    },
    '/admin/usage': {
      get: admin('Usage per key or per public model.', {
        operationId: 'usageReport',
        parameters: [
          { name: 'group_by', in: 'query', schema: { enum: ['key', 'model'] } },
          { name: 'key_id', in: 'query', schema: { type: 'string' } },
          { name: 'model', in: 'query', schema: { type: 'string' } },
          { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' } },
          { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' } },
        ],
      }),
    },
    '/admin/teams': {
      post: admin('Create a team (budgets and allow-list shared by its keys).', {
        operationId: 'createTeam',
        requestBody: { required: true, ...json({ ...adminTeamBody, required: ['name'] }) },
        responses: {
          '201': { description: 'Created', ...json({ type: 'object' }) },
          ...errors(400, 401, 409, 429),
        },
      }),
      get: admin('List teams.', { operationId: 'listTeams' }),
    },
    '/admin/teams/{id}': {
      get: admin('Show one team.', { operationId: 'getTeam', parameters: teamIdParam }),
      patch: admin("Change a team's settings.", {
        operationId: 'updateTeam',
        parameters: teamIdParam,
        requestBody: { required: true, ...json(adminTeamBody) },
        responses: {
          '200': { description: 'OK', ...json({ type: 'object' }) },
          ...errors(400, 401, 404, 409, 429),
        },
      }),
      delete: admin('Delete a team; its keys stay, without a team.', {
        operationId: 'deleteTeam',
        parameters: teamIdParam,
      }),
    },
    '/admin/spend': {
      get: admin(
        'Spend per key, team, model, deployment, day or end user, from the daily rollups.',
        {
          operationId: 'spendReport',
          parameters: [
            {
              name: 'group_by',
              in: 'query',
              schema: { enum: [...SPEND_GROUPS] },
            },
            {
              name: 'from',
              in: 'query',
              description: 'First UTC day included.',
              schema: { type: 'string', format: 'date' },
            },
            {
              name: 'to',
              in: 'query',
              description: 'First UTC day excluded.',
              schema: { type: 'string', format: 'date' },
            },
            { name: 'key_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
            { name: 'team_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
            { name: 'model', in: 'query', schema: { type: 'string' } },
            { name: 'format', in: 'query', schema: { enum: ['json', 'csv'] } },
          ],
          responses: {
            '200': {
              description: 'The report; `format=csv` answers text/csv with one line per group.',
              content: {
                'application/json': { schema: { type: 'object' } },
                'text/csv': { schema: { type: 'string' } },
              },
            },
            ...errors(400, 401, 429),
          },
        },
      ),
    },
    '/admin/config/reload': {
      post: admin('Re-read GATEWAY_CONFIG, as SIGHUP does.', {
        operationId: 'reloadConfig',
        responses: {
          '200': {
            description: 'Reloaded',
            ...json({
              type: 'object',
              properties: {
                object: { const: 'config_reload' },
                source: { type: 'string' },
                models: { type: 'array', items: { type: 'string' } },
              },
            }),
          },
          ...errors(401, 422, 429),
        },
      }),
    },
    '/admin/audit': {
      get: admin('The audit log, newest first (admin and viewer roles); read-only.', {
        operationId: 'auditLog',
        parameters: ['from', 'to', 'actor', 'action', 'target', 'limit', 'cursor', 'format'].map(
          (name) => ({ name, in: 'query', schema: { type: 'string' } }),
        ),
      }),
    },
  },
  components: {
    securitySchemes: {
      virtualKey: { type: 'http', scheme: 'bearer', description: 'A virtual key (gk-...).' },
      adminKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'ADMIN_API_KEY, or a JWT of the identity provider (docs/sso.md).',
      },
    },
    schemas: Object.assign(
      {},
      CHAT_COMPLETION_SCHEMAS,
      MESSAGES_SCHEMAS,
      RESPONSES_SCHEMAS,
      RESPONSE_ANSWER_SCHEMAS,
      EMBEDDINGS_SCHEMAS,
    ),
  },
} as const;
