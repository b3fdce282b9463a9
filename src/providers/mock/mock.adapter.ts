import { Injectable } from '@nestjs/common';
import type {
  ProviderAdapter,
  TokenUsage,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamBatch,
} from '../provider-adapter.interface';
import { estimateTokens } from '../../common/tokens/token-estimate';
import { refuseUnsupported } from '../chat-input';
import { contentText } from '../message-content';

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
    return {
      content: answer.words.join(''),
      finishReason: answer.finishReason,
      usage: answer.usage,
    };
  }

  async stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>> {
    refuseUnsupported(request.parameters, this.provider);
    return streamAnswer(request);
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
    yield [
      last
        ? { type: 'delta', content, finishReason: answer.finishReason }
        : { type: 'delta', content },
    ];
  }
  if (answer.words.length === 0) yield [{ type: 'delta', finishReason: answer.finishReason }];
  yield [{ type: 'usage', usage: answer.usage }];
}

/**
 * Waits as a provider would. An abort rejects with the signal's reason, as the HTTP adapter does,
 * so a client disconnect is told apart from a failure (no error frame, no warning); the sleep of
 * timers/promises would reject with an AbortError instead.
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
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

interface MockAnswer {
  words: string[];
  finishReason: 'stop' | 'length';
  usage: TokenUsage;
}

export function mockAnswer(request: UpstreamChatRequest): MockAnswer {
  const lastUser = contentText(
    [...request.messages].reverse().find((m) => m.role === 'user')?.content,
  );
  const echo = lastUser.length > 200 ? `${lastUser.slice(0, 200)}…` : lastUser;
  const text = `This is a mock answer from ${request.deployment.publicModel}. You said: "${echo}"`;
  const all = text.match(/\S+\s*/g) ?? [];
  const limit = Number(
    request.parameters.max_completion_tokens ?? request.parameters.max_tokens ?? Infinity,
  );
  const words = all.slice(0, Math.max(0, limit));
  const prompt = request.messages.map((m) => contentText(m.content)).join('\n');
  return {
    words,
    finishReason: words.length < all.length ? 'length' : 'stop',
    usage: { promptTokens: estimateTokens(prompt), completionTokens: words.length },
  };
}
