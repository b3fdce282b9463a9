import { Injectable } from '@nestjs/common';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type LabelValues,
} from 'prom-client';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Endpoint } from '../usage/completion-outcome';

/** Label value for "no model / no deployment": rejected before routing, or a name not in the config. */
export const NONE = '-';

/** What a finished completion tells the metrics; names are the config's, never the client's text. */
export interface ObservedCompletion {
  endpoint: Endpoint;
  publicModel: string;
  deployment: string | null;
  httpStatus: number;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  /** Exact cost as a decimal string of US dollars; null when the deployment has no price. */
  costUsd: string | null;
}

/** The series one (model, deployment) pair writes to on every completion. */
interface CompletionSeries {
  /** By endpoint and HTTP status, e.g. `messages 200`. */
  byStatus: Map<string, { inc(value?: number): void }>;
  duration: { observe(value: number): void };
  promptTokens: { inc(value?: number): void };
  completionTokens: { inc(value?: number): void };
  costUsd: { inc(value?: number): void };
  firstToken: { observe(value: number): void };
}

/**
 * The gateway's Prometheus metrics, on a registry of its own (not prom-client's global one), so
 * that two apps in one process (the e2e tests) do not register the same name twice.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests: Counter<'model' | 'deployment' | 'status' | 'endpoint'>;
  private readonly duration: Histogram<'model' | 'deployment'>;
  private readonly firstToken: Histogram<'model' | 'deployment'>;
  private readonly overhead: Histogram;
  private readonly activeStreams: Gauge<'model'>;
  private readonly tokens: Counter<'model' | 'deployment' | 'type'>;
  private readonly cost: Counter<'model' | 'deployment'>;
  private readonly rateLimited: Counter;
  private readonly upstreamErrors: Counter<'deployment' | 'kind'>;
  private readonly series = new Map<
    string,
    CompletionSeries & { labels: LabelValues<'model' | 'deployment'> }
  >();
  /** The open-streams gauge's child per model, kept like the series above. */
  private readonly openStreams = new Map<string, { inc(): void; dec(): void }>();

  constructor(private readonly gatewayConfig: GatewayConfigService) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Completion requests answered, by public model, deployment, HTTP status and endpoint.',
      labelNames: ['model', 'deployment', 'status', 'endpoint'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from the request reaching the completions service to its last byte.',
      labelNames: ['model', 'deployment'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.firstToken = new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Streams: time from the request to the first content chunk.',
      labelNames: ['model', 'deployment'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.overhead = new Histogram({
      name: 'gateway_overhead_seconds',
      help: "Gateway's own time before the first upstream call: key limits, token reservation, routing.",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
    this.activeStreams = new Gauge({
      name: 'gateway_active_streams',
      help: 'SSE streams open now.',
      labelNames: ['model'],
      registers,
    });
    this.tokens = new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens counted (provider-reported or estimated), by type prompt/completion.',
      labelNames: ['model', 'deployment', 'type'],
      registers,
    });
    // A float sum for dashboards and alerts; the exact amounts are in the usage records and
    // /admin/spend (docs/spend.md).
    this.cost = new Counter({
      name: 'gateway_cost_usd_total',
      help: 'Cost of answered requests in US dollars, by public model and deployment (priced deployments only).',
      labelNames: ['model', 'deployment'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'gateway_rate_limited_total',
      help: "Requests refused with 429 by the gateway's own key limits.",
      registers,
    });
    this.upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed requests whose last upstream attempt failed, by deployment and error kind.',
      labelNames: ['deployment', 'kind'],
      registers,
    });
  }

  /**
   * gateway_counter_store_up: 1 while the limit counters are where they should be (Redis, or
   * memory without REDIS_URL), 0 while Redis is down and limits fall back or are refused.
   * Read at each scrape.
   */
  watchCounterStore(up: () => boolean): void {
    this.registry.removeSingleMetric('gateway_counter_store_up');
    new Gauge({
      name: 'gateway_counter_store_up',
      help: '1 while rate limits and budgets are counted in their store (Redis when REDIS_URL is set), 0 while it is down (LIMITS_ON_STORE_FAILURE says what happens then).',
      registers: [this.registry],
      collect() {
        this.set(up() ? 1 : 0);
      },
    });
  }

  completed(outcome: ObservedCompletion): void {
    const series = this.seriesOf(
      this.model(outcome.publicModel),
      this.deployment(outcome.deployment),
    );
    const statusKey = `${outcome.endpoint} ${outcome.httpStatus}`;
    let requests = series.byStatus.get(statusKey);
    if (!requests) {
      requests = this.requests.labels(
        Object.assign({}, series.labels, {
          status: String(outcome.httpStatus),
          endpoint: outcome.endpoint,
        }),
      );
      series.byStatus.set(statusKey, requests);
    }
    requests.inc();
    series.duration.observe(outcome.latencyMs / 1000);
    series.promptTokens.inc(outcome.promptTokens);
    series.completionTokens.inc(outcome.completionTokens);
    if (outcome.costUsd !== null) series.costUsd.inc(Number(outcome.costUsd));
  }

  /**
   * prom-client hashes a label object on every call (sorting its keys); the children of each
   * (model, deployment) pair are looked up once and kept. Both are config names, so the map is
   * as bounded as the labels themselves.
   */
  private seriesOf(
    model: string,
    deployment: string,
  ): CompletionSeries & { labels: LabelValues<'model' | 'deployment'> } {
    const key = `${model}\u0000${deployment}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { model, deployment };
      series = {
        labels,
        byStatus: new Map(),
        duration: this.duration.labels(labels),
        // Label order as before (prom-client prints them in the order first given).
        promptTokens: this.tokens.labels(Object.assign({}, labels, { type: 'prompt' })),
        completionTokens: this.tokens.labels(Object.assign({}, labels, { type: 'completion' })),
        costUsd: this.cost.labels(labels),
        firstToken: this.firstToken.labels(labels),
      };
      this.series.set(key, series);
    }
    return series;
  }

  /** A request answered before it reached a model: bad body, bad key, limits, unknown model. */
  rejected(httpStatus: number, endpoint: Endpoint): void {
    this.requests.inc({ model: NONE, deployment: NONE, status: String(httpStatus), endpoint });
    if (httpStatus === 429) this.rateLimited.inc();
  }

  firstTokenAfter(publicModel: string, deployment: string, ms: number): void {
    this.seriesOf(this.model(publicModel), this.deployment(deployment)).firstToken.observe(
      ms / 1000,
    );
  }

  overheadOf(ms: number): void {
    this.overhead.observe(ms / 1000);
  }

  upstreamError(deployment: string | null, kind: string): void {
    this.upstreamErrors.inc({ deployment: this.deployment(deployment), kind });
  }

  streamOpened(publicModel: string): () => void {
    const model = this.model(publicModel);
    let gauge = this.openStreams.get(model);
    if (!gauge) this.openStreams.set(model, (gauge = this.activeStreams.labels({ model })));
    gauge.inc();
    let open = true;
    return () => {
      if (open) gauge.dec();
      open = false;
    };
  }

  /** Bounded cardinality: only a model the config defines becomes a label value. */
  private model(name: string): string {
    return this.gatewayConfig.deploymentsFor(name) ? name : NONE;
  }

  /** Deployment names are always the config's own (DeploymentConfig.name), never a client's. */
  private deployment(name: string | null): string {
    return name ?? NONE;
  }
}
