import { Type } from 'class-transformer';
import {
  DEPLOYMENT_TYPES,
  PROVIDER_NAMES,
  type DeploymentType,
  type ProviderName,
} from './gateway-config.types';
import {
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** USD per million tokens, at most 6 decimal places so every cost is exact (docs/spend.md). */
const PRICE = /^\d{1,6}(\.\d{1,6})?$/;
const PRICE_MESSAGE =
  '$property must be a decimal string of US dollars per million tokens with at most 6 decimal places, e.g. "0.15"';

/** `price` of a deployment; absent classes fall back to `input` or `output`. */
export class PriceConfigDto {
  @IsString({ message: PRICE_MESSAGE })
  @Matches(PRICE, { message: PRICE_MESSAGE })
  input: string;

  @IsOptional()
  @IsString({ message: PRICE_MESSAGE })
  @Matches(PRICE, { message: PRICE_MESSAGE })
  cached_input?: string;

  @IsOptional()
  @IsString({ message: PRICE_MESSAGE })
  @Matches(PRICE, { message: PRICE_MESSAGE })
  cache_write?: string;

  /** Required for chat deployments (checked by the loader); optional and ignored for embeddings. */
  @IsOptional()
  @IsString({ message: PRICE_MESSAGE })
  @Matches(PRICE, { message: PRICE_MESSAGE })
  output?: string;

  @IsOptional()
  @IsString({ message: PRICE_MESSAGE })
  @Matches(PRICE, { message: PRICE_MESSAGE })
  reasoning?: string;
}

/** One deployment as written in the YAML file (snake_case, as in LiteLLM's config). */
export class DeploymentConfigDto {
  @IsIn(PROVIDER_NAMES)
  provider: ProviderName;

  @IsOptional()
  @IsString()
  @Matches(/^[\w.:@/-]{1,100}$/)
  name?: string;

  /** What the deployment serves: chat completions (default) or embeddings. */
  @IsOptional()
  @IsIn(DEPLOYMENT_TYPES)
  type?: DeploymentType;

  @ValidateIf((d: DeploymentConfigDto) => d.provider !== 'mock')
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  base_url?: string;

  @ValidateIf((d: DeploymentConfigDto) => d.provider !== 'mock')
  @IsString()
  @MinLength(1)
  api_key?: string;

  @ValidateIf((d: DeploymentConfigDto) => d.provider !== 'mock')
  @IsString()
  @MinLength(1)
  model?: string;

  /** Share of the model's load (weighted random choice); 0: a standby, used only when the others fail. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000)
  weight?: number;

  /** Deadline of one attempt's whole answer (JSON) and longest silence between body chunks. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  timeout_ms?: number;

  /** Deadline of one attempt's first streamed token, from the attempt's start. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  first_token_timeout_ms?: number;

  /** Requests this gateway instance sends to the deployment at once; unset means no limit. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  max_concurrency?: number;

  /** How long a request waits for a free slot under `max_concurrency` before a 503. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(600_000)
  max_queue_ms?: number;

  /**
   * Anthropic only: the `max_tokens` sent when the client set neither `max_tokens` nor
   * `max_completion_tokens` (the Messages API requires one). Default 4096.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  default_max_tokens?: number;

  /** Anthropic pass-through: the `anthropic-beta` values forwarded (others are removed). */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  anthropic_beta?: string[];

  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;

  /** Prices per million tokens; without one, costs are unknown (null). */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PriceConfigDto)
  price?: PriceConfigDto;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(600_000)
  latency_ms?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  chunk_delay_ms?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000)
  chunk_count?: number;
}

export class GatewayConfigFileDto {
  @IsObject()
  models: Record<string, DeploymentConfigDto[]>;

  /** Checked against the models by parseAliases (model-aliases.ts). */
  @IsOptional()
  @IsObject()
  aliases?: Record<string, string>;
}

/** A public model: its deployments and the settings that apply to the model as a whole. */
export class ModelConfigDto {
  @ValidateNested({ each: true })
  @Type(() => DeploymentConfigDto)
  deployments: DeploymentConfigDto[];

  /** All attempts of one request and the backoffs between them, from its arrival. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  request_timeout_ms?: number;
}
