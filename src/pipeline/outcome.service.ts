import { Injectable, Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ClientDisconnectedError } from '../common/errors/client-disconnected.error';
import { GatewayException } from '../common/errors/gateway.exception';
import { UpstreamError } from '../common/errors/upstream.error';
import type { ClientConnection } from '../common/http/client-connection';
import { costOf, formatUsd } from '../common/money/price';
import type { TokenUsage } from '../common/tokens/token-usage';
import { AppConfig, logLevelsFrom } from '../config/app-config';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { TokenLimitsService } from '../limits/token-limits.service';
import { MetricsService } from '../metrics/metrics.service';
import { TracingService } from '../tracing/tracing.service';
import type { CompletionOutcome, OutcomeStatus } from '../usage/completion-outcome';
import { UsageRecorder } from '../usage/usage-recorder.service';
import type { CanonicalRequest } from './canonical';
import type { PipelineContext } from './pipeline-context';
import type { PipelineRun } from './pipeline-run';

/** How a request ended, as finish() turns it into its CompletionOutcome. */
export interface Ending {
  status: OutcomeStatus;
  httpStatus: number;
  usage: TokenUsage;
  errorCode?: string;
}

/** A failure, as fail() maps it to an Ending. */
export interface Failure {
  error: unknown;
  usage: TokenUsage;
  /** The status already sent to the client, when the failure came after it. */
  sentStatus?: number;
}

export const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0 };

/**
 * The one place a request's end is accounted for, whatever its wire format: from one
 * CompletionOutcome come the settlement of its token and dollar holds, its usage row, its
 * metrics, the end of its span, and what the request's log line says of it.
 */
@Injectable()
export class OutcomeService {
  private readonly logger = new Logger('Completions');
  /** LOG_LEVEL is read once at start; at the production level the debug line is never built. */
  private readonly debugLines: boolean;

  constructor(
    private readonly usage: UsageRecorder,
    private readonly tokenLimits: TokenLimitsService,
    private readonly metrics: MetricsService,
    private readonly tracing: TracingService,
    config: AppConfig,
  ) {
    this.debugLines = logLevelsFrom(config.LOG_LEVEL).includes('debug');
  }

  begin(request: CanonicalRequest, context: PipelineContext, stream: boolean): PipelineRun {
    const trace = this.tracing.startRequest({
      'gen_ai.request.model': request.model,
      'gateway.stream': stream,
    });
    return {
      request,
      context,
      stream,
      started: performance.now(),
      attempts: 0,
      deployment: null,
      reservation: undefined,
      trace,
    };
  }

  /** Admission refused the request (404, 403, 429): like the rate limiter's, no usage row. */
  refused(run: PipelineRun, error: unknown): void {
    const status = error instanceof GatewayException ? error.status : 500;
    run.trace?.end({ 'http.response.status_code': status }, error);
  }

  /** A failure: the client's leaving is `aborted` (499), anything else `failed` with its code. */
  fail(run: PipelineRun, { error, usage, sentStatus }: Failure): CompletionOutcome {
    if (isDisconnect(error, run.context.client))
      return this.finish(run, {
        status: 'aborted',
        httpStatus: 499,
        usage,
        errorCode: 'client_disconnected',
      });
    if (error instanceof UpstreamError)
      this.metrics.upstreamError(run.deployment?.name ?? null, error.kind);
    const gatewayError =
      error instanceof UpstreamError
        ? error.toGatewayException()
        : error instanceof GatewayException
          ? error
          : undefined;
    return this.finish(run, {
      status: 'failed',
      httpStatus: sentStatus ?? gatewayError?.status ?? 500,
      usage,
      errorCode: gatewayError?.code ?? 'internal_error',
    });
  }

  /** Settles the holds at the usage's cost and records the outcome everywhere it goes. */
  finish(run: PipelineRun, { status, httpStatus, usage, errorCode }: Ending): CompletionOutcome {
    const { context, request, deployment } = run;
    const cost = costAt(usage, deployment);
    if (run.reservation) this.tokenLimits.settleInBackground(run.reservation, usage, cost);
    const price = deployment?.price;
    const outcome: CompletionOutcome = {
      requestId: context.requestId,
      keyId: context.key.id,
      endpoint: request.endpoint,
      teamId: context.key.teamId ?? null,
      // The header wins over the body; '' names no one (docs/spend.md, "Spend by end user").
      endUser: context.endUser || request.endUser || null,
      publicModel: request.model,
      deployment: deployment?.name ?? null,
      status,
      httpStatus,
      stream: run.stream,
      usage,
      cost: price && cost !== null ? { usd: formatUsd(cost), priceVersion: price.version } : null,
      latencyMs: Math.round(performance.now() - run.started),
      attempts: run.attempts,
      errorCode,
    };
    this.usage.record(outcome);
    this.metrics.completed({
      endpoint: outcome.endpoint,
      publicModel: outcome.publicModel,
      deployment: outcome.deployment,
      httpStatus,
      latencyMs: outcome.latencyMs,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      costUsd: outcome.cost?.usd ?? null,
    });
    context.report?.(outcome);
    run.trace?.end(
      {
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
        'http.response.status_code': httpStatus,
        'gateway.deployment': outcome.deployment ?? '',
        'gateway.attempts': outcome.attempts,
      },
      status === 'completed' ? undefined : { code: errorCode ?? status },
    );
    // The request's own log line (requestLogMiddleware) carries these fields; this one is for
    // debugging, and is not even built at the production level.
    if (this.debugLines) this.logger.debug(debugLine(outcome, context));
    return outcome;
  }
}

/** What `usage` costs at the deployment's price, in pico-dollars; null for an unpriced one. */
export function costAt(usage: TokenUsage, deployment: DeploymentConfig | null): bigint | null {
  const price = deployment?.price;
  return price ? costOf(usage, price) : null;
}

export function isDisconnect(error: unknown, client: ClientConnection): boolean {
  return error instanceof ClientDisconnectedError || client.lostReason !== undefined;
}

function debugLine(outcome: CompletionOutcome, context: PipelineContext): string {
  const { usage, errorCode } = outcome;
  return (
    `${outcome.requestId} key=${context.key.name} model=${outcome.publicModel} deployment=${outcome.deployment ?? '-'} ` +
    `${outcome.status} ${outcome.httpStatus}${errorCode ? ` ${errorCode}` : ''} stream=${outcome.stream} endpoint=${outcome.endpoint} ` +
    `tokens=${usage.promptTokens}+${usage.completionTokens} ${outcome.latencyMs}ms`
  );
}
