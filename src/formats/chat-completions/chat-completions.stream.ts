import { GatewayException } from '../../common/errors/gateway.exception';
import { deliberateError } from '../../common/filters/error-envelope';
import { dataFrame, HEARTBEAT_COMMENT } from '../../common/sse/sse-frames';
import type { SseEncoder } from '../../common/sse/sse-encoder';
import type { CanonicalStreamEvent, StreamEnd, TokenUsage } from '../../pipeline/canonical';
import type { ChatCompletionChunk } from './chat-completion.types';
import { toWireUsage } from './chat-completions.response';
import { newCompletionId, unixSeconds } from './completion-id';

export const DONE_FRAME = 'data: [DONE]\n\n';

/**
 * A stream's events as OpenAI sends them: one `data: <chunk>` event per delta, every chunk with
 * the same id, `created` and model; the usage chunk when the client asked for it; `data: [DONE]`
 * at the end. A failure after the first chunk is one `data: {"error":{...}}` event, which the
 * official clients raise as an APIError, and no [DONE].
 */
export class ChatCompletionChunks implements SseEncoder<CanonicalStreamEvent, StreamEnd> {
  readonly heartbeat = HEARTBEAT_COMMENT;
  private readonly id = newCompletionId();
  private readonly created = unixSeconds();
  /** The first delta of each choice carries the role, as OpenAI's do (n > 1: one per choice). */
  private readonly roleSent = new Set<number>();

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {}

  encode(batch: readonly CanonicalStreamEvent[]): string {
    let frames = '';
    for (const event of batch) {
      // Pass-through events never reach this format: it sends no native body.
      if (event.type !== 'delta') continue;
      const index = event.choiceIndex ?? 0;
      const delta: ChatCompletionChunk['choices'][number]['delta'] = {};
      if (!this.roleSent.has(index)) {
        delta.role = 'assistant';
        this.roleSent.add(index);
      }
      if (event.content !== undefined) delta.content = event.content;
      if (event.toolCalls) delta.tool_calls = event.toolCalls;
      frames += dataFrame(
        this.chunk([
          {
            index,
            delta,
            finish_reason: event.finishReason ?? null,
            logprobs: event.logprobs ?? null,
          },
        ]),
      );
    }
    return frames;
  }

  end({ usage }: StreamEnd): string {
    return this.includeUsage ? dataFrame(this.chunk([], usage)) + DONE_FRAME : DONE_FRAME;
  }

  error(error: unknown): string {
    return dataFrame((deliberateError(error) ?? new GatewayException('internal_error')).toBody());
  }

  private chunk(choices: ChatCompletionChunk['choices'], usage?: TokenUsage): ChatCompletionChunk {
    const chunk: ChatCompletionChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices,
    };
    // Assigned rather than spread: the same keys in the same order, without a copy per chunk.
    if (usage) chunk.usage = toWireUsage(usage);
    return chunk;
  }
}
