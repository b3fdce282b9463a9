import { parseDecimal } from '../common/money/decimal';
import { COST_DECIMALS, formatUsd } from '../common/money/price';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateKeyDto } from '../admin/dto/create-key.dto';
import { toKeySettings } from '../admin/dto/key-settings.dto';
import { DEFAULT_ROTATION_GRACE_SECONDS, RotateKeyDto } from '../admin/dto/rotate-key.dto';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import {
  DeploymentHealthService,
  DeploymentHealthView,
} from '../pipeline/deployment-health.service';
import { GatewayConfigService } from '../config/gateway-config.service';
import { presentCreatedKey, presentKey } from '../keys/virtual-key.presenter';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { DashboardSessionGuard } from './dashboard-session.guard';
import { DashboardSettings } from './dashboard-settings';
import {
  DashboardUsageService,
  UsageBucketRow,
  usageBucketSeconds,
} from './dashboard-usage.service';
import { ListKeysQuery } from './dto/list-keys.query';
import { UsageSeriesQuery } from './dto/usage-series.query';

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const DAY_MS = 86_400_000;

/**
 * The dashboard's collection endpoints: one call per page view (overview, keys, usage), plus one
 * per action. Everything reuses the services behind the admin API.
 */
@Public() // no virtual key: DashboardSessionGuard checks the session instead
@UseGuards(DashboardSessionGuard)
@Controller('dashboard/api')
export class DashboardApiController {
  constructor(
    private readonly keys: VirtualKeyService,
    private readonly models: GatewayConfigService,
    private readonly usage: DashboardUsageService,
    private readonly health: DeploymentHealthService,
    @Inject(DashboardSettings) private readonly settings: DashboardSettings,
  ) {}

  @Get('overview')
  overview(@Req() request: Request) {
    // Only deployments that failed have an entry; the rest are in rotation.
    const health = new Map(this.health.snapshot().map((view) => [view.name, view]));
    const origin =
      this.settings.publicBaseUrl ?? `${request.protocol}://${request.headers.host ?? 'localhost'}`;
    return {
      object: 'dashboard_overview',
      base_url: `${origin}/v1`,
      version: VERSION,
      uptime_seconds: Math.floor(process.uptime()),
      started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(),
      models: this.models.publicModels().map((model) => ({
        id: model,
        deployments: (this.models.deploymentsFor(model) ?? []).map((deployment) => ({
          name: deployment.name,
          provider: deployment.provider,
          upstream_model: deployment.upstreamModel ?? null,
          ...presentHealth(health.get(deployment.name)),
        })),
      })),
    };
  }

  /** The Keys page in one call: one page of keys with their last use, and the models for the form. */
  @Get('keys')
  async listKeys(@Query() query: ListKeysQuery) {
    const perPage = query.per_page ?? 20;
    const page = query.page ?? 1;
    const search = query.search?.trim().toLowerCase();
    // Newest first, so a key just created is on the first page.
    const all = (await this.keys.list())
      .filter(
        (key) =>
          !search ||
          key.name.toLowerCase().includes(search) ||
          key.keyPrefix.toLowerCase().includes(search),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const slice = all.slice((page - 1) * perPage, page * perPage);
    const lastUsed = await this.usage.lastUsed(slice.map((key) => key.id));
    return {
      object: 'list',
      data: slice.map((key) => ({
        ...presentKey(key),
        last_used_at: lastUsed.get(key.id)?.toISOString() ?? null,
      })),
      page,
      per_page: perPage,
      total: all.length,
      models: this.models.publicModels(),
    };
  }

  @Post('keys')
  async createKey(@Body() body: CreateKeyDto) {
    this.assertKnownModels(body.allowed_models);
    return presentCreatedKey(await this.keys.create({ name: body.name, ...toKeySettings(body) }));
  }

  @Post('keys/:id/revoke')
  @HttpCode(200)
  async revoke(@Param('id') id: string) {
    return presentKey(await this.keys.revoke(id));
  }

  @Post('keys/:id/rotate')
  @HttpCode(200)
  async rotate(@Param('id') id: string, @Body() body: RotateKeyDto) {
    return presentCreatedKey(
      await this.keys.rotate(id, {
        graceSeconds: body.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS,
      }),
    );
  }

  /**
   * The Usage page in one call: per time bucket, requests, errors, tokens and mean latency,
   * per key, per model and per endpoint (chat_completions, messages, responses). The bucket grows with the
   * range so a chart has ~60 points, and is whole days beyond two days (usageBucketSeconds).
   */
  @Get('usage')
  async usageSeries(@Query() query: UsageSeriesQuery) {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DAY_MS);
    if (from >= to)
      throw new GatewayException('invalid_parameter', {
        param: 'from',
        message: '`from` must be before `to`.',
      });
    if (to.getTime() - from.getTime() > 366 * DAY_MS)
      throw new GatewayException('invalid_parameter', {
        param: 'from',
        message: 'The range may span at most 366 days.',
      });
    const bucketSeconds = usageBucketSeconds(from, to);
    const rows = await this.usage.buckets(from, to, bucketSeconds);
    const names = await this.keys.namesById();
    return {
      object: 'dashboard_usage',
      from: from.toISOString(),
      to: to.toISOString(),
      bucket_seconds: bucketSeconds,
      by_key: series(
        rows,
        (row) => row.keyId,
        (id) => names.get(id) ?? id,
      ),
      by_model: series(
        rows,
        (row) => row.model,
        (model) => model,
      ),
      by_endpoint: series(
        rows,
        (row) => row.endpoint,
        (endpoint) => endpoint,
      ),
    };
  }

  private assertKnownModels(models: string[] | null | undefined): void {
    const known = this.models.publicModels();
    const unknown = (models ?? []).filter((model) => !known.includes(model));
    if (unknown.length > 0) {
      throw new GatewayException('invalid_parameter', {
        param: 'allowed_models',
        message: `Unknown model(s) in allowed_models: ${unknown.join(', ')}.`,
      });
    }
  }
}

function series(
  rows: UsageBucketRow[],
  groupOf: (row: UsageBucketRow) => string,
  nameOf: (group: string) => string,
) {
  const groups = new Map<
    string,
    Map<
      number,
      {
        requests: number;
        errors: number;
        prompt_tokens: number;
        completion_tokens: number;
        latency_sum: number;
        /** Pico-dollars, exact; null while no request of the point had a price. */
        cost: bigint | null;
      }
    >
  >();
  for (const row of rows) {
    const group = groupOf(row);
    const buckets = groups.get(group) ?? new Map();
    groups.set(group, buckets);
    const t = row.bucket.getTime();
    const point = buckets.get(t) ?? {
      requests: 0,
      errors: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      latency_sum: 0,
      cost: null,
    };
    point.requests += row.requests;
    point.errors += row.errors;
    point.prompt_tokens += row.promptTokens;
    point.completion_tokens += row.completionTokens;
    point.latency_sum += row.latencySum;
    const cost = row.costUsd === null ? null : parseDecimal(row.costUsd, COST_DECIMALS);
    if (cost !== null) point.cost = (point.cost ?? 0n) + cost;
    buckets.set(t, point);
  }
  return [...groups].map(([group, buckets]) => ({
    id: group,
    name: nameOf(group),
    points: [...buckets].map(([t, { latency_sum, cost, ...point }]) => ({
      t: new Date(t).toISOString(),
      ...point,
      // US dollars as an exact decimal string (docs/spend.md); null when nothing was priced.
      cost_usd: cost === null ? null : formatUsd(cost),
      total_tokens: point.prompt_tokens + point.completion_tokens,
      avg_latency_ms: point.requests > 0 ? Math.round(latency_sum / point.requests) : 0,
    })),
  }));
}

/** This instance's view of a deployment (routing state is per instance, docs/providers-and-routing.md, "Routing"). */
function presentHealth(view: DeploymentHealthView | undefined) {
  if (!view || view.status === 'healthy') {
    return {
      health: 'available',
      consecutive_failures: view?.consecutiveFailures ?? 0,
      cooling_until: null,
    };
  }
  return {
    health: view.status,
    consecutive_failures: view.consecutiveFailures,
    cooling_until: view.coolingUntil === null ? null : new Date(view.coolingUntil).toISOString(),
  };
}
