import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import {
  DeploymentHealthService,
  DeploymentHealthView,
} from '../pipeline/deployment-health.service';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Access } from '../identity/access';
import { CurrentAccess, Requires } from '../identity/current-access.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { DashboardSessionGuard } from './dashboard-session.guard';
import { dashboardOrigin, DashboardSettings } from './dashboard-settings';
import { DashboardUsageService, UsagePoint, usageBucketSeconds } from './dashboard-usage.service';
import { UsageSeriesQuery } from './dto/usage-series.query';

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const DAY_MS = 86_400_000;

/**
 * The Overview and Usage pages: one call per page view. Everything reuses the services behind
 * the admin API; the Keys and Audit pages have their own controllers.
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
  @Requires('overview.read')
  overview(@Req() request: Request) {
    // Only deployments that failed have an entry; the rest are in rotation.
    const health = new Map(this.health.snapshot().map((view) => [view.name, view]));
    const origin = dashboardOrigin(this.settings, request);
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

  /**
   * The Usage page in one call: per time bucket, requests, errors, tokens and mean latency,
   * per key, per model and per endpoint (chat_completions, messages, responses). The bucket grows
   * with the range so a chart has ~60 points, and is whole hours beyond six hours and whole days
   * beyond two days (usageBucketSeconds). `end_user` keeps that end user's requests only. A team
   * admin or a member sees only the requests of the keys in their reach, in every series.
   */
  @Get('usage')
  @Requires('usage.read')
  async usageSeries(@Query() query: UsageSeriesQuery, @CurrentAccess() access: Access) {
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
    // The keys (for their names) are read while the series are, unless the series need them.
    const listed = this.keys.list();
    const inReach = access.readsAll
      ? null
      : (await listed).filter((key) => access.canReadKey(key)).map((key) => key.id);
    const endUser = query.end_user || undefined;
    const [keys, series] = await Promise.all([
      listed,
      this.usage.series(from, to, bucketSeconds, inReach, endUser),
    ]);
    const names = new Map(keys.map((key) => [key.id, key.name]));
    return {
      object: 'dashboard_usage',
      from: from.toISOString(),
      to: to.toISOString(),
      bucket_seconds: bucketSeconds,
      end_user: endUser ?? null,
      by_key: present(series.key, (id) => names.get(id) ?? id),
      by_model: present(series.model, (model) => model),
      by_endpoint: present(series.endpoint, (endpoint) => endpoint),
    };
  }
}

function present(series: Map<string, UsagePoint[]>, nameOf: (group: string) => string) {
  return [...series].map(([group, points]) => ({
    id: group,
    name: nameOf(group),
    points: points.map((point) => ({
      t: point.bucket,
      requests: point.requests,
      errors: point.errors,
      prompt_tokens: point.promptTokens,
      completion_tokens: point.completionTokens,
      // US dollars as an exact decimal string (docs/spend.md); null when nothing was priced.
      cost_usd: point.costUsd,
      total_tokens: point.promptTokens + point.completionTokens,
      avg_latency_ms: point.requests > 0 ? Math.round(point.latencySum / point.requests) : 0,
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
