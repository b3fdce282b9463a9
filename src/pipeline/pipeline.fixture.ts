import { HttpAdapterHost } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { TokenUsage } from '../common/tokens/token-usage';
import { AppConfig, loadAppConfig } from '../config/app-config';
import { parseGatewayConfig } from '../config/gateway-config.loader';
import { GatewayConfigService } from '../config/gateway-config.service';
import { TokenLimitsService, type TokenReservation } from '../limits/token-limits.service';
import { MetricsService } from '../metrics/metrics.service';
import { manualClientConnection } from '../common/http/client-connection.fixture';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import type {
  ProviderAdapter,
  UpstreamStreamBatch,
  UpstreamStreamPart,
} from '../providers/provider-adapter.interface';
import { ProviderRegistry } from '../providers/provider-registry.service';
import { TeamsService } from '../teams/teams.service';
import { TracingService } from '../tracing/tracing.service';
import type { CompletionOutcome } from '../usage/completion-outcome';
import { DrainTimeoutMs, RequestDrain } from '../usage/request-drain.service';
import { UsageRecorder } from '../usage/usage-recorder.service';
import type { CanonicalBatch, CanonicalRequest, CanonicalStream } from './canonical';
import type { PipelineContext } from './pipeline-context';
import { PIPELINE_SERVICES } from './pipeline.module';
import { Pipeline } from './pipeline.service';

export interface PipelineFixtureOptions {
  /** The adapters the deployments are served by (matched by `provider`). */
  adapters: ProviderAdapter[];
  /** The `models:` of a gateway config; by default alpha-k3 on one mock deployment. */
  models?: Record<string, unknown[]>;
  /** Environment the settings are loaded from (LOG_LEVEL, ROUTER_*, ...). */
  env?: Record<string, unknown>;
}

export interface PipelineFixture {
  pipeline: Pipeline;
  drain: RequestDrain;
  get<T>(type: new (...args: never[]) => T): T;
  /** Every outcome recorded, in order: what the usage recorder received. */
  outcomes: CompletionOutcome[];
  /** Every settlement of a reservation, in order. */
  settlements: Array<{ usage: TokenUsage; cost?: bigint | null }>;
}

/**
 * The pipeline's own module for unit tests: its real services, with the provider adapters, the
 * usage recorder, the token limits (every reservation granted) and teams (none) as explicit
 * fakes, and no HTTP server (the drain counts the pipeline's own units of work).
 */
export async function pipelineFixture(options: PipelineFixtureOptions): Promise<PipelineFixture> {
  const outcomes: CompletionOutcome[] = [];
  const settlements: PipelineFixture['settlements'] = [];
  const gatewayConfig = new GatewayConfigService(
    parseGatewayConfig({ models: options.models ?? { 'alpha-k3': [{ provider: 'mock' }] } }, {}),
  );
  const reservation: TokenReservation = { holds: [], settled: false };
  const module = await Test.createTestingModule({
    providers: [
      ...PIPELINE_SERVICES,
      MetricsService,
      TracingService,
      RequestDrain,
      { provide: AppConfig, useValue: loadAppConfig(options.env ?? {}) },
      { provide: GatewayConfigService, useValue: gatewayConfig },
      { provide: ProviderRegistry, useValue: new ProviderRegistry(options.adapters) },
      { provide: HttpAdapterHost, useValue: { httpAdapter: undefined } },
      { provide: DrainTimeoutMs, useValue: 5_000 },
      {
        provide: UsageRecorder,
        useValue: { record: (outcome: CompletionOutcome) => outcomes.push(outcome) },
      },
      {
        provide: TokenLimitsService,
        useValue: {
          reserve: () => Promise.resolve({ ...reservation }),
          settleInBackground: (_held: TokenReservation, usage: TokenUsage, cost?: bigint | null) =>
            settlements.push({ usage, cost }),
        },
      },
      { provide: TeamsService, useValue: { forKey: () => Promise.resolve(null) } },
    ],
  }).compile();
  return {
    pipeline: module.get(Pipeline),
    drain: module.get(RequestDrain),
    get: (type) => module.get(type),
    outcomes,
    settlements,
  };
}

export const A_REQUEST: CanonicalRequest = {
  endpoint: 'chat_completions',
  model: 'alpha-k3',
  messages: [{ role: 'user', content: 'hi' }],
  parameters: {},
};

export function aPipelineContext(client = manualClientConnection()): PipelineContext {
  return { key: aVirtualKey(), requestId: 'req_1', client, setHeaders: () => undefined };
}

export const HELLO_WORLD: UpstreamStreamPart[] = [
  { type: 'delta', content: 'Hello' },
  { type: 'delta', content: ' world', finishReason: 'stop' },
];

export const oneEach = (parts: UpstreamStreamPart[]): UpstreamStreamBatch[] =>
  parts.map((part) => [part]);

/**
 * A mock-provider adapter whose stream yields `batches`; `upstream.closed` tells whether the
 * stream was closed.
 */
export function streamingAdapter(
  batches: UpstreamStreamBatch[],
  overrides: Partial<ProviderAdapter> = {},
) {
  const upstream = { closed: false };
  async function* answer() {
    try {
      yield* batches;
    } finally {
      upstream.closed = true;
    }
  }
  const adapter: ProviderAdapter = {
    provider: 'mock',
    complete: () => Promise.reject(new Error('not used')),
    stream: () => Promise.resolve(answer()),
    ...overrides,
  };
  return { adapter, upstream };
}

/** Every batch of a stream, and the StreamEnd it returned. */
export async function readStream(stream: CanonicalStream) {
  const batches: CanonicalBatch[] = [];
  for (let step = await stream.next(); ; step = await stream.next()) {
    if (step.done) return { batches, end: step.value };
    batches.push(step.value);
  }
}
