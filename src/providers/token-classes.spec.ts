import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, EventSourceMessage } from 'eventsource-parser';
import { costOf, formatUsd, toPrice } from '../common/money/price';
import { mapAnthropicResponse } from './anthropic/anthropic.mapping';
import { AnthropicStreamMapper } from './anthropic/anthropic.stream';
import { mapGeminiResponse } from './gemini/gemini.mapping';
import { GeminiStreamMapper } from './gemini/gemini.stream';
import { mapCompletion, mapStreamEvent } from './openai/openai.mapping';
import type { TokenUsage, UpstreamChatRequest } from './provider-adapter.interface';

// Recorded answers whose usage has every token class each provider reports (docs/spend.md,
// "Token classes"): all three map into the same TokenUsage, whose totals include the classes.

const fixture = (provider: string, name: string) =>
  readFileSync(join(__dirname, '../../test/fixtures', provider, name), 'utf8');

function sseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

function usagePart(parts: Array<{ type: string; usage?: TokenUsage }>): TokenUsage | undefined {
  return parts.find((part) => part.type === 'usage')?.usage;
}

const request = { messages: [{ role: 'user', content: 'hi' }] } as UpstreamChatRequest;

describe('token classes: one usage shape for every provider', () => {
  it('OpenAI: cached_tokens and reasoning_tokens are shares of prompt and completion tokens', () => {
    const expected = {
      promptTokens: 1830,
      completionTokens: 420,
      cachedTokens: 1536,
      reasoningTokens: 384,
    };
    const body = JSON.parse(fixture('openai', 'chat-completion-cached-reasoning.json'));
    expect(mapCompletion(body, request).usage).toEqual(expected);
    const parts = sseEvents(fixture('openai', 'stream-cached-reasoning.sse'))
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => mapStreamEvent(event.data));
    expect(usagePart(parts)).toEqual(expected);
  });

  it('OpenAI: usage without details has no classes (unknown, not zero)', () => {
    const body = JSON.parse(fixture('openai', 'chat-completion-cached-reasoning.json'));
    body.usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
    expect(mapCompletion(body, request).usage).toEqual({ promptTokens: 5, completionTokens: 2 });
  });

  it('Anthropic: input_tokens excludes the cache, so cache reads and writes are added to the prompt', () => {
    const body = JSON.parse(fixture('anthropic', 'message-tool-use.json'));
    expect(mapAnthropicResponse(body).usage).toEqual({
      promptTokens: 384 + 2048 + 100,
      completionTokens: 112,
      cachedTokens: 2048,
      cacheWriteTokens: 100,
    });
    const mapper = new AnthropicStreamMapper();
    const parts = sseEvents(fixture('anthropic', 'stream-cache-read.sse')).flatMap((event) =>
      mapper.map({ event: event.event, data: event.data }),
    );
    expect(usagePart(parts)).toEqual({
      promptTokens: 21 + 3072 + 188,
      completionTokens: 9,
      cachedTokens: 3072,
      cacheWriteTokens: 188,
    });
  });

  it('Gemini: promptTokenCount includes the cached tokens; thoughts are added to the candidates', () => {
    const expected = {
      promptTokens: 4120,
      completionTokens: 18 + 412,
      cachedTokens: 4096,
      reasoningTokens: 412,
    };
    const text = fixture('gemini', 'generate-cached-thinking.json');
    expect(mapGeminiResponse(JSON.parse(text)).usage).toEqual(expected);
    const mapper = new GeminiStreamMapper(() => 'call_1');
    const parts = [...mapper.map(JSON.stringify(JSON.parse(text))), ...mapper.finish()];
    expect(usagePart(parts)).toEqual(expected);
  });

  it('prices each class of the mapped usage at its own rate', () => {
    const price = toPrice({
      input: '1.25',
      cached_input: '0.125',
      cache_write: '1.5625',
      output: '10',
      reasoning: '12',
    });
    const body = JSON.parse(fixture('openai', 'chat-completion-cached-reasoning.json'));
    // (1830 - 1536) * 1.25 + 1536 * 0.125 + (420 - 384) * 10 + 384 * 12, per million tokens.
    expect(formatUsd(costOf(mapCompletion(body, request).usage, price))).toBe('0.0055275');
    const anthropic = mapAnthropicResponse(
      JSON.parse(fixture('anthropic', 'message-tool-use.json')),
    );
    // 384 * 1.25 + 2048 * 0.125 + 100 * 1.5625 + 112 * 10
    expect(formatUsd(costOf(anthropic.usage, price))).toBe('0.00201225');
  });
});
