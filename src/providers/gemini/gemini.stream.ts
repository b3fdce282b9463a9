import type { TokenUsage, UpstreamStreamPart } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';
import { geminiErrorFromBody } from './gemini.errors';
import {
  candidateOutput,
  GeminiResponse,
  mapGeminiFinishReason,
  mapGeminiUsage,
  randomToolCallId,
  ToolCallIdGenerator,
} from './gemini.response';

// streamGenerateContent?alt=sse: every `data:` is a whole GenerateContentResponse holding the
// next piece of the answer. Function calls arrive whole (name and complete args) in one chunk.

interface GeminiStreamState {
  /** OpenAI tool-call indices run across chunks: the next call gets this one. */
  nextToolIndex: number;
  /** Whether any function call came: STOP then means tool_calls. */
  sawToolCall: boolean;
  /** usageMetadata of the latest chunk that had one; the last chunk's counts are the totals. */
  usage?: TokenUsage;
  usageSent: boolean;
}

export class GeminiStreamMapper {
  private readonly state: GeminiStreamState = {
    nextToolIndex: 0,
    sawToolCall: false,
    usageSent: false,
  };

  constructor(private readonly newId: ToolCallIdGenerator = randomToolCallId) {}

  /** Maps one `data:` payload. */
  map(data: string): UpstreamStreamPart[] {
    let chunk: GeminiResponse;
    try {
      chunk = JSON.parse(data) as GeminiResponse;
    } catch {
      throw new UpstreamError(
        'invalid_response',
        `stream event is not JSON: ${data.slice(0, 200)}`,
      );
    }
    if (chunk?.error) throw geminiErrorFromBody(chunk, undefined, 'error event in stream');
    if (chunk.usageMetadata) this.state.usage = mapGeminiUsage(chunk.usageMetadata);
    const parts: UpstreamStreamPart[] = [];
    const candidate = chunk.candidates?.[0];
    if (candidate) {
      const { text, toolCalls } = candidateOutput(candidate, this.newId);
      if (toolCalls.length > 0) this.state.sawToolCall = true;
      const toolDeltas = toolCalls.map((call) => ({ index: this.state.nextToolIndex++, ...call }));
      const finished = typeof candidate.finishReason === 'string';
      if (text.length > 0 || toolDeltas.length > 0 || finished) {
        parts.push({
          type: 'delta',
          ...(text.length > 0 ? { content: text } : {}),
          ...(toolDeltas.length > 0 ? { toolCalls: toolDeltas } : {}),
          ...(finished
            ? {
                finishReason: mapGeminiFinishReason(candidate.finishReason, this.state.sawToolCall),
                rawFinishReason: candidate.finishReason,
              }
            : {}),
        });
      }
      // The finishing chunk carries the final counts; usage is relayed right after it.
      if (finished) parts.push(...this.finish());
    } else if (chunk.promptFeedback?.blockReason) {
      parts.push({
        type: 'delta',
        finishReason: 'content_filter',
        rawFinishReason: chunk.promptFeedback.blockReason,
      });
      parts.push(...this.finish());
    }
    return parts;
  }

  /**
   * The usage part, if not relayed yet. Call at the end of the body: a stream that stopped without
   * a finishReason still reports what the last chunk counted.
   */
  finish(): UpstreamStreamPart[] {
    if (this.state.usageSent || !this.state.usage) return [];
    this.state.usageSent = true;
    return [{ type: 'usage', usage: this.state.usage }];
  }
}
