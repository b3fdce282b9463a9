import { toPrice } from '../common/money/price';
import { readFileSync } from 'node:fs';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { DeploymentConfigDto, GatewayConfigFileDto, ModelConfigDto } from './gateway-config.dto';
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DeploymentConfig,
  GatewayConfig,
  PUBLIC_MODELS,
} from './gateway-config.types';
import { interpolateEnv } from './interpolate-env';
import { NO_ALIASES, parseAliases } from './model-aliases';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_QUEUE_MS = 1_000;
const MODEL_NAME = /^[A-Za-z0-9][\w.:/-]{0,127}$/;
/**
 * A field the DTOs do not declare is an error, not ignored: a typo such as `timout_ms` would
 * otherwise silently leave the default in place. New fields only need declaring in the DTO.
 */
const STRICT = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;

/** Every public model served by the built-in mock: the gateway runs with no provider account. */
export function embeddedDefaultConfig(): GatewayConfig {
  const models = new Map<string, DeploymentConfig[]>();
  for (const model of PUBLIC_MODELS)
    models.set(model, [toDeployment(model, 0, { provider: 'mock' })]);
  return { models, requestTimeouts: new Map(), aliases: NO_ALIASES, source: 'embedded-defaults' };
}

export function loadGatewayConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`GATEWAY_CONFIG: cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    // Required here, not at the top: a gateway on the embedded defaults (no GATEWAY_CONFIG) never
    // parses YAML, and loading the parser's 72 modules cost its start about 25 ms.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { parse } = require('yaml') as typeof import('yaml');
    return parseGatewayConfig(parse(text), env);
  } catch (error) {
    throw new Error(`GATEWAY_CONFIG ${path}: ${(error as Error).message}`, { cause: error });
  }
}

export function parseGatewayConfig(document: unknown, env: NodeJS.ProcessEnv): GatewayConfig {
  const root = interpolateEnv(document, env) as { models?: unknown; aliases?: unknown } | null;
  if (
    !root ||
    typeof root !== 'object' ||
    !root.models ||
    typeof root.models !== 'object' ||
    Array.isArray(root.models)
  ) {
    throw new Error(
      'expected a top-level "models" mapping of public model name to a list of deployments',
    );
  }
  const rootErrors = validateSync(plainToInstance(GatewayConfigFileDto, root), STRICT);
  if (rootErrors.length > 0) throw new Error(describe(rootErrors, ''));
  const models = new Map<string, DeploymentConfig[]>();
  const requestTimeouts = new Map<string, number>();
  for (const [model, entry] of Object.entries(root.models)) {
    if (!MODEL_NAME.test(model)) throw new Error(`models: "${model}" is not a valid model name`);
    // A model is its list of deployments, or an object with that list and model-wide settings.
    const listed = Array.isArray(entry);
    const settings = (listed ? { deployments: entry } : entry) as { deployments?: unknown };
    if (
      !settings ||
      typeof settings !== 'object' ||
      !Array.isArray(settings.deployments) ||
      settings.deployments.length === 0
    ) {
      throw new Error(
        `models.${model}: expected a non-empty list of deployments, or an object with one as \`deployments\``,
      );
    }
    const dto = plainToInstance(ModelConfigDto, settings);
    const errors = validateSync(dto, STRICT);
    if (errors.length > 0) {
      const message = describe(errors, `models.${model}`);
      throw new Error(listed ? message.replace(/\.deployments\[/g, '[') : message);
    }
    dto.deployments.forEach((deployment, index) => {
      if (deployment.anthropic_beta && deployment.provider !== 'anthropic')
        throw new Error(
          `models.${model}${listed ? '' : '.deployments'}[${index}].anthropic_beta: only for provider anthropic`,
        );
    });
    models.set(
      model,
      checkTypes(model, dto.deployments).map((d, i) => toDeployment(model, i, d)),
    );
    if (dto.request_timeout_ms !== undefined) requestTimeouts.set(model, dto.request_timeout_ms);
  }
  if (models.size === 0) throw new Error('models: at least one public model is required');
  return { models, requestTimeouts, aliases: parseAliases(root.aliases, models), source: 'file' };
}

function toDeployment(
  publicModel: string,
  index: number,
  dto: Partial<DeploymentConfigDto>,
): DeploymentConfig {
  return {
    name: dto.name ?? `${publicModel}/${index}`,
    publicModel,
    provider: dto.provider ?? 'mock',
    type: dto.type ?? 'chat',
    baseUrl: dto.base_url?.replace(/\/+$/, ''),
    apiKey: dto.api_key,
    upstreamModel: dto.model,
    weight: dto.weight ?? 1,
    timeoutMs: dto.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    firstTokenTimeoutMs: dto.first_token_timeout_ms ?? dto.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    maxConcurrency: dto.max_concurrency ?? null,
    maxQueueMs: dto.max_queue_ms ?? DEFAULT_MAX_QUEUE_MS,
    headers: dto.headers ?? {},
    defaultMaxTokens: dto.default_max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    anthropicBeta: dto.anthropic_beta,
    // An embedding produces no output tokens: its output price is never charged.
    price: dto.price
      ? toPrice(
          dto.type === 'embedding' ? { ...dto.price, output: dto.price.output ?? '0' } : dto.price,
        )
      : null,
    mock: {
      latencyMs: dto.latency_ms ?? 0,
      chunkDelayMs: dto.chunk_delay_ms ?? 20,
      chunkCount: dto.chunk_count ?? 16,
    },
  };
}

/**
 * One public model serves one endpoint, so all its deployments share a `type`; a chat price
 * needs `output`; Anthropic has no embeddings API.
 */
function checkTypes(model: string, deployments: DeploymentConfigDto[]): DeploymentConfigDto[] {
  const types = new Set(deployments.map((deployment) => deployment.type ?? 'chat'));
  if (types.size > 1)
    throw new Error(
      `models.${model}: all deployments of a model must share one \`type\` (found ${[...types].join(' and ')})`,
    );
  deployments.forEach((deployment, index) => {
    const at = `models.${model}[${index}]`;
    if (deployment.type === 'embedding' && deployment.provider === 'anthropic')
      throw new Error(`${at}: provider anthropic has no embeddings API (type: embedding)`);
    if (deployment.type !== 'embedding' && deployment.price && !deployment.price.output)
      throw new Error(`${at}.price.output: required for a chat deployment`);
  });
  return deployments;
}

function describe(errors: ValidationError[], prefix: string): string {
  const lines: string[] = [];
  const walk = (list: ValidationError[], path: string) => {
    for (const error of list) {
      const here = /^\d+$/.test(error.property)
        ? `${path}[${error.property}]`
        : path
          ? `${path}.${error.property}`
          : error.property;
      for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
        lines.push(
          `${here}: ${constraint === 'whitelistValidation' ? 'unknown field (check its spelling)' : message}`,
        );
      }
      walk(error.children ?? [], here);
    }
  };
  walk(errors, prefix);
  return lines.join('; ');
}
