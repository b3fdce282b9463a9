import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { estimateTokensOfLength } from '../common/tokens/token-estimate';
import type { TokenUsage } from '../common/tokens/token-usage';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { estimatePromptTokens } from '../limits/token-reservation';
import { MetricsService } from '../metrics/metrics.service';
import type { OutcomeStatus } from '../usage/completion-outcome';
import type {
  CanonicalBatch,
  CanonicalRequest,
  CanonicalStreamEvent,
  StreamEnd,
} from './canonical';
import { isDisconnect, OutcomeService } from './outcome.service';
import type { PipelineRun } from './pipeline-run';
import type { RequestDeadlines } from './request-deadlines';
import type { UpstreamPart } from './upstream-calls';

/** An upstream stream whose first read is in: the attempt that opened it has succeeded. */
export interface OpenedStream {
  iterator: AsyncIterator<readonly UpstreamPart[]>;
  first: IteratorResult<readonly UpstreamPart[]>;
}

/**
 * Relays an opened upstream stream as canonical batches, and accounts for it however it ends:
 * run to its end, failed after its first batch, or closed early because the client left.
 * Usage parts are taken out of the batches (what remains is never empty) and the stream is
 * charged the last usage the provider reported, or an estimate from what was streamed.
 */
@Injectable()
export class StreamRelay {
  constructor(
    private readonly outcome: OutcomeService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Its finally block closes the upstream, settles and records the outcome, and then calls
   * `workDone`, even when one of those throws, or a graceful shutdown would wait out its timeout.
   */
  async *relay(
    run: PipelineRun,
    deployment: DeploymentConfig,
    { iterator, first }: OpenedStream,
    deadlines: RequestDeadlines,
    workDone: () => void,
  ): AsyncGenerator<CanonicalBatch, StreamEnd> {
    const { request } = run;
    let streamClosed: (() => void) | undefined;
    let usage: TokenUsage | undefined;
    // Only its length is needed, to estimate usage when the provider reports none.
    let streamedChars = 0;
    let yielded = false;
    let status: OutcomeStatus = 'aborted';
    let failure: unknown;
    try {
      // Inside the try, as everything after the upstream opened: whatever throws here still
      // closes the upstream, settles the reservation and records the outcome.
      this.metrics.firstTokenAfter(request.model, deployment.name, performance.now() - run.started);
      streamClosed = this.metrics.streamOpened(request.model);
      for (let step = first; !step.done; step = await iterator.next()) {
        const parts = step.value;
        // A copy only for a batch that holds usage; the others are handed on as they came.
        let events: CanonicalStreamEvent[] | undefined;
        for (let i = 0; i < parts.length; i++) {
          const part = parts[i];
          if (part.type === 'usage') {
            usage = part.usage;
            events ??= parts.slice(0, i) as CanonicalStreamEvent[];
            continue;
          }
          streamedChars += outputChars(part);
          events?.push(part);
        }
        const batch = events ?? (parts as CanonicalBatch);
        if (batch.length === 0) continue;
        yielded = true;
        yield batch;
      }
      // The upstream stream is over, and its deadlines with it.
      deadlines.dispose();
      status = 'completed';
      usage ??= estimateUsage(request, streamedChars);
      return { usage, deployment };
    } catch (error) {
      failure = error;
      status = isDisconnect(error, run.context.client) ? 'aborted' : 'failed';
      throw error;
    } finally {
      try {
        deadlines.dispose();
        await iterator.return?.().catch(() => undefined);
        streamClosed?.();
        const settled = usage ?? estimateUsage(request, streamedChars);
        if (status === 'completed')
          this.outcome.finish(run, { status, httpStatus: 200, usage: settled });
        // After the first batch the client got 200 and an error event: the row says so, and
        // keeps what went wrong in error_code rather than claiming a 502 nobody received.
        else if (status === 'failed')
          this.outcome.fail(run, {
            error: failure,
            usage: settled,
            sentStatus: yielded ? 200 : undefined,
          });
        else
          this.outcome.finish(run, {
            status: 'aborted',
            httpStatus: 499,
            usage: settled,
            errorCode: 'client_disconnected',
          });
      } finally {
        workDone();
      }
    }
  }
}

/** Generated text an event carried: content, tool-call names and arguments. */
function outputChars(event: CanonicalStreamEvent): number {
  if (event.type === 'native') return event.outputChars ?? 0;
  let chars = event.content?.length ?? 0;
  if (event.toolCalls)
    for (const call of event.toolCalls)
      chars += (call.function?.name?.length ?? 0) + (call.function?.arguments?.length ?? 0);
  return chars;
}

/** The same estimate the reservation made for the prompt, and four characters a token after. */
function estimateUsage(request: CanonicalRequest, completionChars: number): TokenUsage {
  return {
    promptTokens: estimatePromptTokens(request.messages),
    completionTokens: estimateTokensOfLength(completionChars),
  };
}
