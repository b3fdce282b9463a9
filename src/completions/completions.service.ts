import { Injectable, Logger, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { performance } from 'node:perf_hooks';
import { replayFirst } from '../common/async/replay-first';
import { ClientDisconnectedError } from '../common/errors/client-disconnected.error';
import { GatewayException } from '../common/errors/gateway.exception';
import type { ClientConnection } from '../common/http/client-connection';
import type { SetResponseHeaders } from '../common/http/response-headers';
import { logLevelsFrom, type LogLevel } from '../config/app-config';
import type { DeploymentConfig } from '../config/gateway-config.types';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import { TokenLimitsService, TokenReservation } from '../limits/token-limits.service';
import { estimatePromptTokens } from '../limits/token-reservation';
import { estimateTokensOfLength } from '../common/tokens/token-estimate';
import type {
  ChatTurn,
  TokenUsage,
  UpstreamChatRequest,
  UpstreamStreamBatch,
} from '../providers/provider-adapter.interface';
import { UpstreamError } from '../common/errors/upstream.error';
import { MetricsService } from '../metrics/metrics.service';
import { RequestTrace, TracingService } from '../tracing/tracing.service';
import { RequestDrain } from '../usage/request-drain.service';
import { UsageRecorder } from '../usage/usage-recorder.service';
import { TeamsService } from '../teams/teams.service';
import { costOf, formatUsd } from '../common/money/price';
import type { ChatCompletion, ChatCompletionChunk, CompletionUsage } from './chat-completion.types';
import { AttemptDeadline } from './attempt-deadline';
import { passthroughParameters } from './compatibility-matrix';
import type { CompletionOutcome, OutcomeStatus } from '../usage/completion-outcome';
import { newCompletionId, unixSeconds } from './completion-id';
import { DeploymentRouter } from './deployment-router.service';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';
import type { UpstreamAbortSignal } from '../common/async/upstream-abort-signal';

export interface CompletionContext {
  key: VirtualKeyView;
  requestId: string;
  /** The client's connection: whether it left before the response was complete. */
  client: ClientConnection;
  setHeaders: SetResponseHeaders;
  /** Hears the outcome once it is known: the controller hands it to the request's log line. */
  report?: (outcome: CompletionOutcome) => void;
}

/** One request on its way: what it asked, for whom, and what it learns for the log line and the metrics. */
interface Progress {
  dto: CreateChatCompletionDto;
  context: CompletionContext;
  started: number;
  attempts: number;
  /** The request's span when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  trace?: RequestTrace;
}

/** How a request ended, as record() turns it into a CompletionOutcome. */
interface Ending {
  deployment: DeploymentConfig | null;
  status: OutcomeStatus;
  httpStatus: number;
  usage: TokenUsage;
  /** What `usage` cost at the deployment's price, in pico-dollars (costAt); null: unpriced. */
  cost: bigint | null;
  errorCode?: string;
}

/** A failure, as recordFailure() maps it to an Ending. */
interface Failure {
  deployment: DeploymentConfig | null;
  error: unknown;
  usage: TokenUsage;
  /** The status already sent to the client, when the failure came after it. */
  sentStatus?: number;
}

const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0 };

type PartIterator = AsyncIterator<UpstreamStreamBatch>;

const DEFAULT_STREAM_MAX_DURATION_MS = 1_800_000;

interface PeekedStream {
  iterator: PartIterator;
  first: IteratorResult<UpstreamStreamBatch>;
  /** The attempt's deadlines: chunks() disarms them once the upstream stream is over. */
  deadline: AttemptDeadline;
}

@Injectable()
export class CompletionsService {
  private readonly logger = new Logger('Completions');
  private readonly streamMaxDurationMs: number;
  /** LOG_LEVEL is read once at start; at the production level the debug line is never built. */
  private readonly debugLines: boolean;

  constructor(
    private readonly router: DeploymentRouter,
    private readonly usage: UsageRecorder,
    private readonly tokenLimits: TokenLimitsService,
    private readonly drain: RequestDrain,
    @Optional() config?: ConfigService,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly tracing?: TracingService,
    @Optional() private readonly teams?: TeamsService,
  ) {
    this.streamMaxDurationMs =
      config?.get<number>('STREAM_MAX_DURATION_MS') ?? DEFAULT_STREAM_MAX_DURATION_MS;
    const level = config?.get<LogLevel>('LOG_LEVEL');
    this.debugLines = level !== undefined && logLevelsFrom(level).includes('debug');
  }

  async complete(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
  ): Promise<ChatCompletion> {
    // Held until the outcome is recorded, also after the client has left: a graceful shutdown
    // waits for it before the final usage flush.
    const workDone = this.drain.begin();
    try {
      return await this.answer(dto, context);
    } finally {
      workDone();
    }
  }

  private async answer(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
  ): Promise<ChatCompletion> {
    const started = performance.now();
    const progress = this.begin(dto, context, started);
    // A refused reservation (429) is a rejection like the rate limiter's, not a usage record.
    const { deployments, reservation } = await this.admit(dto, context, progress);
    let attempted: DeploymentConfig | null = null;
    try {
      const { result, deployment } = await this.router.withFailover(
        deployments,
        context.client,
        async (adapter, candidate) => {
          attempted = candidate;
          const endAttempt = this.attemptStarting(progress, candidate);
          // timeout_ms bounds the whole answer, counted from the request's arrival (queueing included).
          const deadline = new AttemptDeadline(context.client, started);
          deadline.arm(candidate.timeoutMs, 'complete answer');
          try {
            const answer = await deadline.race(
              adapter.complete(this.upstreamRequest(dto, context, candidate, deadline.signal)),
            );
            endAttempt();
            return answer;
          } catch (error) {
            endAttempt(error);
            throw error;
          } finally {
            deadline.dispose();
          }
        },
        { acceptedAt: started, setHeaders: context.setHeaders },
      );
      const cost = costAt(result.usage, deployment);
      const outcome = this.record(progress, {
        deployment,
        status: 'completed',
        httpStatus: 200,
        usage: result.usage,
        cost,
      });
      // Known before the body leaves, unlike a stream's (docs/spend.md).
      if (outcome.cost) context.setHeaders({ 'x-gateway-cost-usd': outcome.cost.usd });
      this.tokenLimits.settleInBackground(reservation, result.usage, cost);
      return {
        id: newCompletionId(),
        object: 'chat.completion',
        created: unixSeconds(),
        model: dto.model,
        // Every choice the provider gave (n > 1), each with its logprobs when asked for.
        choices: [result, ...(result.moreChoices ?? [])].map((choice, index) => ({
          index,
          message: {
            role: 'assistant',
            content: choice.content,
            ...(choice.toolCalls ? { tool_calls: choice.toolCalls } : {}),
          },
          finish_reason: choice.finishReason,
          logprobs: choice.logprobs ?? null,
        })),
        usage: toWireUsage(result.usage),
      };
    } catch (error) {
      // Nothing reached the client, so nothing is charged.
      this.tokenLimits.settleInBackground(reservation, NO_USAGE);
      this.recordFailure(progress, { deployment: attempted, error, usage: NO_USAGE });
      throw error;
    }
  }

  /**
   * Starts a stream and reads its first parts before returning, so an upstream failure before
   * the first token is still answered as a plain HTTP error (TensorZero's peek_first_chunk).
   * Chunks come in batches, one per upstream read (UpstreamStreamBatch), never empty; the SSE
   * interceptor writes each batch as consecutive events.
   */
  async stream(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
  ): Promise<AsyncIterable<ChatCompletionChunk[]>> {
    // As complete()'s, held until the stream's outcome is recorded, after its last event: once
    // the stream is handed out, its generator ends the unit; until then, a failure here does.
    const workDone = this.drain.begin();
    try {
      return await this.openStream(dto, context, workDone);
    } catch (error) {
      workDone();
      throw error;
    }
  }

  private async openStream(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
    workDone: () => void,
  ): Promise<AsyncIterable<ChatCompletionChunk[]>> {
    const started = performance.now();
    const progress = this.begin(dto, context, started);
    const { deployments, reservation } = await this.admit(dto, context, progress);
    let attempted: DeploymentConfig | null = null;
    let opened: { result: PeekedStream; deployment: DeploymentConfig };
    try {
      opened = await this.router.withFailover(
        deployments,
        context.client,
        async (adapter, candidate) => {
          attempted = candidate;
          const endAttempt = this.attemptStarting(progress, candidate);
          // Both deadlines count from the request's arrival, so a wait for a concurrency slot or a
          // failed earlier deployment is included. The body timeout restarts on every byte, and SSE
          // comments are bytes: the first token needs a deadline of its own, which cancels this
          // attempt only; the stream as a whole is cut at STREAM_MAX_DURATION_MS.
          const deadline = new AttemptDeadline(context.client, started);
          deadline.arm(this.streamMaxDurationMs, 'end of stream (STREAM_MAX_DURATION_MS)');
          const disarmFirstToken = deadline.arm(candidate.firstTokenTimeoutMs, 'first token');
          let iterator: PartIterator | undefined;
          try {
            const request = this.upstreamRequest(dto, context, candidate, deadline.signal);
            iterator = (await deadline.race(adapter.stream(request)))[Symbol.asyncIterator]();
            const first = await deadline.race(iterator.next());
            disarmFirstToken();
            // The attempt's span ends at the first token: what follows belongs to the request's.
            endAttempt();
            return { iterator, first, deadline };
          } catch (error) {
            endAttempt(error);
            // Disarmed first, and the attempt's own error kept whatever closing the stream says:
            // a rejected return() used to leave the deadlines armed and the client listened to.
            deadline.dispose();
            await iterator?.return?.()?.catch(() => undefined);
            throw error;
          }
        },
        { acceptedAt: started, setHeaders: context.setHeaders },
      );
    } catch (error) {
      this.tokenLimits.settleInBackground(reservation, NO_USAGE);
      this.recordFailure(progress, { deployment: attempted, error, usage: NO_USAGE });
      throw error;
    }
    const { result, deployment } = opened;
    // Started here, not by the SSE writer: from now on only the generator's finally closes the
    // upstream, records the outcome and ends the unit of work, and it must run even if the
    // client is already gone.
    const chunks = this.chunks(progress, deployment, result, reservation, workDone);
    return replayFirst(await chunks.next(), chunks);
  }

  private async *chunks(
    progress: Progress,
    deployment: DeploymentConfig,
    { iterator, first, deadline }: PeekedStream,
    reservation: TokenReservation,
    workDone: () => void,
  ): AsyncGenerator<ChatCompletionChunk[]> {
    const { dto, context } = progress;
    let streamClosed: (() => void) | undefined;
    const id = newCompletionId();
    const created = unixSeconds();
    const chunk = (
      choices: ChatCompletionChunk['choices'],
      usage?: CompletionUsage,
    ): ChatCompletionChunk => {
      const built: ChatCompletionChunk = {
        id,
        object: 'chat.completion.chunk',
        created,
        model: dto.model,
        choices,
      };
      // Assigned rather than spread: the same keys in the same order, without a copy per chunk.
      if (usage) built.usage = usage;
      return built;
    };
    let usage: TokenUsage | undefined;
    // Only its length is needed, to estimate usage when the provider reports none.
    let streamedChars = 0;
    // The first delta of each choice carries the role, as OpenAI's do (n > 1: one per choice).
    const roleSent = new Set<number>();
    let yielded = false;
    let status: OutcomeStatus = 'aborted';
    let failure: unknown;
    try {
      // Inside the try, as everything after the upstream opened: whatever throws here still
      // closes the upstream, settles the reservation and records the outcome.
      this.metrics?.firstTokenAfter(
        dto.model,
        deployment.name,
        performance.now() - progress.started,
      );
      streamClosed = this.metrics?.streamOpened(dto.model);
      for (let step = first; !step.done; step = await iterator.next()) {
        const batch: ChatCompletionChunk[] = [];
        for (const part of step.value) {
          if (part.type === 'usage') {
            usage = part.usage;
            continue;
          }
          const index = part.choiceIndex ?? 0;
          const delta: ChatCompletionChunk['choices'][number]['delta'] = {};
          if (!roleSent.has(index)) delta.role = 'assistant';
          roleSent.add(index);
          if (part.content !== undefined) {
            delta.content = part.content;
            streamedChars += part.content.length;
          }
          if (part.toolCalls) {
            delta.tool_calls = part.toolCalls;
            // Tool-call names and arguments are generated text too, and count when usage is estimated.
            for (const call of part.toolCalls)
              streamedChars +=
                (call.function?.name?.length ?? 0) + (call.function?.arguments?.length ?? 0);
          }
          batch.push(
            chunk([
              {
                index,
                delta,
                finish_reason: part.finishReason ?? null,
                logprobs: part.logprobs ?? null,
              },
            ]),
          );
        }
        if (batch.length === 0) continue;
        yielded = true;
        yield batch;
      }
      // The upstream stream is over, and its deadlines with it (the usage chunk may still wait).
      deadline.dispose();
      status = 'completed';
      usage ??= this.estimateUsage(dto, streamedChars);
      if (dto.stream_options?.include_usage) yield [chunk([], toWireUsage(usage))];
    } catch (error) {
      failure = error;
      status = isDisconnect(error, context.client) ? 'aborted' : 'failed';
      throw error;
    } finally {
      // Runs on completion, failure and early return (client gone): the deadlines are disarmed,
      // the upstream is closed and what was already streamed is still counted. The unit of work
      // ends even if one of these throws, or a graceful shutdown would wait out its timeout.
      try {
        deadline.dispose();
        await iterator.return?.().catch(() => undefined);
        streamClosed?.();
        const settled = usage ?? this.estimateUsage(dto, streamedChars);
        const cost = costAt(settled, deployment);
        this.tokenLimits.settleInBackground(reservation, settled, cost);
        if (status === 'completed')
          this.record(progress, { deployment, status, httpStatus: 200, usage: settled, cost });
        // After the first chunk the client got 200 and an error event: the row says so, and
        // keeps what went wrong in error_code rather than claiming a 502 nobody received.
        else if (status === 'failed')
          this.recordFailure(progress, {
            deployment,
            error: failure,
            usage: settled,
            sentStatus: yielded ? 200 : undefined,
          });
        else
          this.record(progress, {
            deployment,
            status: 'aborted',
            httpStatus: 499,
            usage: settled,
            cost,
            errorCode: 'client_disconnected',
          });
      } finally {
        workDone();
      }
    }
  }

  private begin(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
    started: number,
  ): Progress {
    const trace = this.tracing?.startRequest({
      'gen_ai.request.model': dto.model,
      'gateway.stream': dto.stream === true,
    });
    return { dto, context, started, attempts: 0, trace };
  }

  /** Routing and the token reservation; a refusal here (404, 429) still ends the request's span. */
  private async admit(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
    progress: Progress,
  ) {
    try {
      // Most keys have no team: no promise to wait on for them.
      const team = context.key.teamId ? ((await this.teams?.forKey(context.key)) ?? null) : null;
      const deployments = this.router.deploymentsFor(dto.model, context.key, team);
      const reservation = await this.tokenLimits.reserve(context.key, dto, context.setHeaders, {
        team,
        candidates: this.router.pricedCandidatesFor(deployments),
      });
      return { deployments, reservation };
    } catch (error) {
      const status = error instanceof GatewayException ? error.status : 500;
      progress.trace?.end({ 'http.response.status_code': status }, error);
      throw error;
    }
  }

  /** The gateway's own share of the latency is what passed before the first upstream call. */
  private attemptStarting(
    progress: Progress,
    deployment: DeploymentConfig,
  ): (error?: unknown) => void {
    if (progress.attempts++ === 0) this.metrics?.overheadOf(performance.now() - progress.started);
    return (
      progress.trace?.attempt({
        'gen_ai.system': deployment.provider,
        'gen_ai.request.model': deployment.upstreamModel ?? deployment.publicModel,
        'gateway.deployment': deployment.name,
        ...(deployment.baseUrl ? { 'server.address': new URL(deployment.baseUrl).host } : {}),
      }) ?? (() => undefined)
    );
  }

  /** `signal` is the attempt's (AttemptDeadline), which the client's disconnect also aborts. */
  private upstreamRequest(
    dto: CreateChatCompletionDto,
    context: CompletionContext,
    deployment: DeploymentConfig,
    signal: UpstreamAbortSignal,
  ): UpstreamChatRequest {
    return {
      deployment,
      messages: dto.messages.map(toChatTurn),
      parameters: passthroughParameters(dto),
      signal,
      requestId: context.requestId,
    };
  }

  private estimateUsage(dto: CreateChatCompletionDto, completionChars: number): TokenUsage {
    return {
      promptTokens: estimatePromptTokens(dto.messages),
      completionTokens: estimateTokensOfLength(completionChars),
    };
  }

  private recordFailure(
    progress: Progress,
    { deployment, error, usage, sentStatus }: Failure,
  ): void {
    // Off the success path, so worked out here rather than handed down by every caller.
    const cost = costAt(usage, deployment);
    if (isDisconnect(error, progress.context.client)) {
      this.record(progress, {
        deployment,
        status: 'aborted',
        httpStatus: 499,
        usage,
        cost,
        errorCode: 'client_disconnected',
      });
      return;
    }
    if (error instanceof UpstreamError)
      this.metrics?.upstreamError(deployment?.name ?? null, error.kind);
    const gatewayError =
      error instanceof UpstreamError
        ? error.toGatewayException()
        : error instanceof GatewayException
          ? error
          : undefined;
    const httpStatus = sentStatus ?? gatewayError?.status ?? 500;
    this.record(progress, {
      deployment,
      status: 'failed',
      httpStatus,
      usage,
      cost,
      errorCode: gatewayError?.code ?? 'internal_error',
    });
  }

  private record(
    progress: Progress,
    { deployment, status, httpStatus, usage, cost, errorCode }: Ending,
  ): CompletionOutcome {
    const { context, dto } = progress;
    const price = deployment?.price;
    const outcome: CompletionOutcome = {
      requestId: context.requestId,
      keyId: context.key.id,
      teamId: context.key.teamId ?? null,
      publicModel: dto.model,
      deployment: deployment?.name ?? null,
      status,
      httpStatus,
      stream: dto.stream === true,
      usage,
      cost: price && cost !== null ? { usd: formatUsd(cost), priceVersion: price.version } : null,
      latencyMs: Math.round(performance.now() - progress.started),
      attempts: progress.attempts,
      errorCode,
    };
    this.usage.record(outcome);
    this.metrics?.completed({
      publicModel: outcome.publicModel,
      deployment: outcome.deployment,
      httpStatus,
      latencyMs: outcome.latencyMs,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      costUsd: outcome.cost?.usd ?? null,
    });
    context.report?.(outcome);
    progress.trace?.end(
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
    // debugging, and building it cost about 5 us per request when nothing printed it.
    if (this.debugLines)
      this.logger.debug(
        `${outcome.requestId} key=${context.key.name} model=${outcome.publicModel} deployment=${outcome.deployment ?? '-'} ` +
          `${outcome.status} ${outcome.httpStatus}${errorCode ? ` ${errorCode}` : ''} stream=${outcome.stream} ` +
          `tokens=${usage.promptTokens}+${usage.completionTokens} ${outcome.latencyMs}ms`,
      );
    return outcome;
  }
}

/** What `usage` costs at the deployment's price, in pico-dollars; null for an unpriced one. */
function costAt(usage: TokenUsage, deployment: DeploymentConfig | null): bigint | null {
  const price = deployment?.price;
  return price ? costOf(usage, price) : null;
}

function toChatTurn(message: CreateChatCompletionDto['messages'][number]): ChatTurn {
  const turn: ChatTurn = { role: message.role, content: message.content ?? null };
  if (message.name !== undefined) turn.name = message.name;
  if (message.tool_call_id !== undefined) turn.tool_call_id = message.tool_call_id;
  if (message.tool_calls !== undefined) turn.tool_calls = message.tool_calls;
  if (message.function_call !== undefined) turn.function_call = message.function_call;
  return turn;
}

function toWireUsage(usage: TokenUsage): CompletionUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function isDisconnect(error: unknown, client: ClientConnection): boolean {
  return error instanceof ClientDisconnectedError || client.lostReason !== undefined;
}
