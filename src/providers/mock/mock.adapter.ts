import { Injectable } from '@nestjs/common';
import type {
  ProviderAdapter,
  TokenUsage,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamEmbedRequest,
  UpstreamEmbedResult,
  UpstreamStreamBatch,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { countInputTokens, mockVector } from '../embeddings/embedding-input';
import { estimateTokens } from '../../common/tokens/token-estimate';
import { refuseUnsupported, stopSequences } from '../chat-input';
import { contentText } from '../message-content';
import type { UpstreamSignal } from '../attempt-signal';

/**
 * A built-in provider with deterministic answers, so the gateway runs and can be tried with no
 * provider account. One word of output counts as one completion token.
 */
@Injectable()
export class MockAdapter implements ProviderAdapter {
  readonly provider = 'mock';

  async complete(request: UpstreamChatRequest): Promise<UpstreamChatResult> {
    refuseUnsupported(request.parameters, this.provider);
    const answer = mockAnswer(request);
    await pause(request.deployment.mock.latencyMs, request.signal);
    const result: UpstreamChatResult = {
      content: answer.words.join(''),
      finishReason: answer.finishReason,
      usage: answer.usage,
    };
    if (answer.stopSequence !== undefined) result.stopSequence = answer.stopSequence;
    return result;
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>> {
    refuseUnsupported(request.parameters, this.provider);
    return streamAnswer(request);
  }

  async embed(request: UpstreamEmbedRequest): Promise<UpstreamEmbedResult> {
    await pause(request.deployment.mock.latencyMs, request.signal);
    return {
      vectors: request.inputs.map((input) => mockVector(input, request.dimensions)),
      usage: { promptTokens: countInputTokens(request.inputs), completionTokens: 0 },
    };
  }
}

/** One part per batch, as a provider that sends its events apart would deliver them. */
async function* streamAnswer(request: UpstreamChatRequest): AsyncGenerator<UpstreamStreamBatch> {
  const { latencyMs, chunkDelayMs, chunkCount } = request.deployment.mock;
  const answer = mockAnswer(request);
  const perChunk = Math.max(1, Math.ceil(answer.words.length / chunkCount));
  await pause(latencyMs, request.signal);
  for (let start = 0; start < answer.words.length; start += perChunk) {
    if (start > 0) await pause(chunkDelayMs, request.signal);
    const last = start + perChunk >= answer.words.length;
    const content = answer.words.slice(start, start + perChunk).join('');
    yield [last ? finalDelta(answer, content) : { type: 'delta', content }];
  }
  if (answer.words.length === 0) yield [finalDelta(answer)];
  yield [{ type: 'usage', usage: answer.usage }];
}

/**
 * Waits as a provider would. An abort rejects with the signal's reason, as the HTTP adapter does,
 * so a client disconnect is told apart from a failure (no error frame, no warning); the sleep of
 * timers/promises would reject with an AbortError instead.
 */
function pause(ms: number, signal: UpstreamSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function finalDelta(answer: MockAnswer, content?: string): UpstreamStreamPart {
  const delta: UpstreamStreamPart = { type: 'delta', finishReason: answer.finishReason };
  if (content !== undefined) delta.content = content;
  if (answer.stopSequence !== undefined) delta.stopSequence = answer.stopSequence;
  return delta;
}

interface MockAnswer {
  words: string[];
  finishReason: 'stop' | 'length';
  /** The client's stop sequence the answer was cut at, if one occurs in it. */
  stopSequence?: string;
  usage: TokenUsage;
}

export function mockAnswer(request: UpstreamChatRequest): MockAnswer {
  const lastUser = contentText(
    [...request.messages].reverse().find((m) => m.role === 'user')?.content,
  );
  const echo = lastUser.length > 200 ? `${lastUser.slice(0, 200)}…` : lastUser;
  const full = `This is a mock answer from ${request.deployment.publicModel}. You said: "${echo}"`;
  const stop = firstStop(full, stopSequences(request.parameters.stop));
  const text = stop ? full.slice(0, stop.at) : full;
  const all = text.match(/\S+\s*/g) ?? [];
  const limit = Number(
    request.parameters.max_completion_tokens ?? request.parameters.max_tokens ?? Infinity,
  );
  const words = all.slice(0, Math.max(0, limit));
  const prompt = request.messages.map((m) => contentText(m.content)).join('\n');
  const cut = words.length < all.length;
  const answer: MockAnswer = {
    words,
    finishReason: cut ? 'length' : 'stop',
    usage: { promptTokens: estimateTokens(prompt), completionTokens: words.length },
  };
  // As a provider does: the answer ends before the first stop sequence in it, and says which.
  if (stop && !cut) answer.stopSequence = stop.sequence;
  return answer;
}

function firstStop(
  text: string,
  sequences: string[] | undefined,
): { at: number; sequence: string } | undefined {
  let first: { at: number; sequence: string } | undefined;
  for (const sequence of sequences ?? []) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && (first === undefined || at < first.at)) first = { at, sequence };
  }
  return first;
}
