import { Injectable } from '@nestjs/common';
import { replayFirst } from '../common/async/replay-first';
import { AppConfig } from '../config/app-config';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { NativeAnswer, UpstreamChatResult } from '../providers/provider-adapter.interface';
import { RequestDrain } from '../usage/request-drain.service';
import { AdmissionService } from './admission.service';
import { AttemptsService, type AttemptPlan } from './attempts.service';
import type {
  CanonicalAnswer,
  CanonicalEmbedRequest,
  CanonicalEmbeddings,
  CanonicalRequest,
  CanonicalStream,
} from './canonical';
import { NO_USAGE, OutcomeService } from './outcome.service';
import type { PipelineContext } from './pipeline-context';
import { RequestDeadlines } from './request-deadlines';
import { StreamRelay, type OpenedStream } from './stream-relay.service';
import { completeOn, embedOn, passThrough, streamOn } from './upstream-calls';

/**
 * The format-neutral request pipeline: admission (key, team, limits), attempts (routing,
 * failover, deadlines) and one outcome per request. Every wire format (src/formats/*) calls it
 * with a CanonicalRequest and maps what comes back to its own answer or events.
 */
@Injectable()
export class Pipeline {
  private readonly streamMaxDurationMs: number;

  constructor(
    private readonly admission: AdmissionService,
    private readonly attempts: AttemptsService,
    private readonly outcome: OutcomeService,
    private readonly relay: StreamRelay,
    private readonly drain: RequestDrain,
    private readonly models: GatewayConfigService,
    config: AppConfig,
  ) {
    this.streamMaxDurationMs = config.STREAM_MAX_DURATION_MS;
  }

  /** A whole answer; the cost header is set before it returns (docs/spend.md). */
  async complete(request: CanonicalRequest, context: PipelineContext): Promise<CanonicalAnswer> {
    // Held until the outcome is recorded, also after the client has left: a graceful shutdown
    // waits for it before the final usage flush.
    const workDone = this.drain.begin(context.exchange);
    try {
      return await this.answer(this.publicModelOf(request), context);
    } finally {
      workDone();
    }
  }

  /**
   * Starts a stream and reads its first events before returning, so that a failure before the
   * first token is still answered as a plain HTTP error, and failover stays possible until then.
   */
  async stream(request: CanonicalRequest, context: PipelineContext): Promise<CanonicalStream> {
    // Held until the stream's outcome is recorded, after its last event: once the stream is
    // handed out its relay ends the unit of work; until then, a failure here does.
    const workDone = this.drain.begin(context.exchange);
    try {
      return await this.openStream(this.publicModelOf(request), context, workDone);
    } catch (error) {
      workDone();
      throw error;
    }
  }

  /**
   * Embeddings: the same admission (held at `promptTokens`, the format's count), attempts and
   * outcome as a whole chat answer; the cost header is set before it returns.
   */
  async embed(
    request: CanonicalEmbedRequest,
    promptTokens: number,
    context: PipelineContext,
  ): Promise<CanonicalEmbeddings> {
    const workDone = this.drain.begin(context.exchange);
    // What admission and the outcome see: no conversation, no completion (max_tokens 0).
    const accounted: CanonicalRequest = {
      endpoint: 'embeddings',
      model: this.models.publicModel(request.model),
      messages: [],
      parameters: { max_tokens: 0 },
      type: 'embedding',
      promptTokens,
      endUser: request.user,
    };
    const run = this.outcome.begin(accounted, context, false);
    try {
      const { deployments, requestTimeoutMs } = await this.admission.admit(run);
      const deadlines = new RequestDeadlines(context.client, run.started, { requestTimeoutMs });
      try {
        const { result, deployment } = await this.attempts.run(run, deployments, deadlines, {
          bounds: 'complete answer',
          timeoutOf: (deployment) => deployment.timeoutMs,
          call: (adapter, deployment, signal) =>
            deadlines.race(embedOn(adapter, deployment, request, signal, context.requestId)),
        });
        const { usage } = result;
        const outcome = this.outcome.finish(run, { status: 'completed', httpStatus: 200, usage });
        if (outcome.cost) context.setHeaders({ 'x-gateway-cost-usd': outcome.cost.usd });
        return { vectors: result.vectors, usage, deployment };
      } catch (error) {
        this.outcome.fail(run, { error, usage: NO_USAGE });
        throw error;
      } finally {
        deadlines.dispose();
      }
    } finally {
      workDone();
    }
  }

  /**
   * A request naming an alias (`aliases:` in GATEWAY_CONFIG) is routed, limited and accounted as
   * its public model, on every endpoint; the formats answer with the name the client sent.
   */
  private publicModelOf(request: CanonicalRequest): CanonicalRequest {
    const model = this.models.publicModel(request.model);
    return model === request.model ? request : Object.assign({}, request, { model });
  }

  private async answer(
    request: CanonicalRequest,
    context: PipelineContext,
  ): Promise<CanonicalAnswer> {
    const run = this.outcome.begin(request, context, false);
    const { deployments, requestTimeoutMs } = await this.admission.admit(run);
    const deadlines = new RequestDeadlines(context.client, run.started, { requestTimeoutMs });
    const plan: AttemptPlan<UpstreamChatResult | NativeAnswer> = {
      bounds: 'complete answer',
      timeoutOf: (deployment) => deployment.timeoutMs,
      call: (adapter, deployment, signal) =>
        deadlines.race(completeOn(adapter, deployment, request, signal, context.requestId)),
    };
    try {
      const { result, deployment, adapter } = await this.attempts.run(
        run,
        deployments,
        deadlines,
        plan,
      );
      const { usage } = result;
      const outcome = this.outcome.finish(run, { status: 'completed', httpStatus: 200, usage });
      // Known before the body leaves, unlike a stream's (docs/spend.md).
      if (outcome.cost) context.setHeaders({ 'x-gateway-cost-usd': outcome.cost.usd });
      return passThrough(request, deployment, adapter)
        ? { type: 'native', body: (result as NativeAnswer).body, usage, deployment }
        : { type: 'chat', result: result as UpstreamChatResult, usage, deployment };
    } catch (error) {
      // Nothing reached the client, so nothing is charged.
      this.outcome.fail(run, { error, usage: NO_USAGE });
      throw error;
    } finally {
      deadlines.dispose();
    }
  }

  private async openStream(
    request: CanonicalRequest,
    context: PipelineContext,
    workDone: () => void,
  ): Promise<CanonicalStream> {
    const run = this.outcome.begin(request, context, true);
    const { deployments, requestTimeoutMs } = await this.admission.admit(run);
    // Each attempt's first token has a deadline of its own, and all of them together the
    // request's; once the stream runs it is cut at STREAM_MAX_DURATION_MS, and between chunks by
    // the deployment's timeout_ms (the adapter's).
    const deadlines = new RequestDeadlines(context.client, run.started, {
      requestTimeoutMs,
      streamMaxMs: this.streamMaxDurationMs,
    });
    const plan: AttemptPlan<OpenedStream> = {
      bounds: 'first token',
      timeoutOf: (deployment) => deployment.firstTokenTimeoutMs,
      call: async (adapter, deployment, signal) => {
        let iterator: OpenedStream['iterator'] | undefined;
        try {
          const opening = streamOn(adapter, deployment, request, signal, context.requestId);
          iterator = (await deadlines.race(opening))[Symbol.asyncIterator]();
          return { iterator, first: await deadlines.race(iterator.next()) };
        } catch (error) {
          // The attempt's own error is the one kept, whatever closing the stream says.
          await iterator?.return?.()?.catch(() => undefined);
          throw error;
        }
      },
    };
    let opened;
    try {
      opened = await this.attempts.run(run, deployments, deadlines, plan);
      deadlines.answered();
    } catch (error) {
      deadlines.dispose();
      this.outcome.fail(run, { error, usage: NO_USAGE });
      throw error;
    }
    // Started here, not by the SSE writer: from now on only the relay's finally closes the
    // upstream, records the outcome and ends the unit of work, and it must run even if the
    // client is already gone.
    const events = this.relay.relay(run, opened.deployment, opened.result, deadlines, workDone);
    return replayFirst(await events.next(), events);
  }
}
