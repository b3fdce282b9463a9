import type { DeploymentConfig } from '../config/gateway-config.types';
import type { TokenReservation } from '../limits/token-limits.service';
import type { RequestTrace } from '../tracing/tracing.service';
import type { CanonicalRequest } from './canonical';
import type { PipelineContext } from './pipeline-context';

/**
 * One request on its way through the pipeline: what it asked, for whom, and what admission and
 * the attempts learn for its outcome.
 */
export interface PipelineRun {
  request: CanonicalRequest;
  context: PipelineContext;
  stream: boolean;
  /** performance.now() when the pipeline took the request (after authentication and rate limits). */
  started: number;
  /** Upstream attempts made so far. */
  attempts: number;
  /** The deployment of the latest attempt: the one a failure is recorded against. */
  deployment: DeploymentConfig | null;
  /** What admission held against the key's and team's limits; the outcome settles it. */
  reservation: TokenReservation | undefined;
  /** The request's span when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  trace?: RequestTrace;
}
