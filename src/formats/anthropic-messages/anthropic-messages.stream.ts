import { UpstreamError } from '../../common/errors/upstream.error';
import { randomHex12 } from '../../common/ids/random-hex';
import type { SseEncoder } from '../../common/sse/sse-encoder';
import { eventFrame as frame } from '../../common/sse/sse-frames';
import type {
  CanonicalDelta,
  CanonicalNativeEvent,
  CanonicalStreamEvent,
  StreamEnd,
} from '../../pipeline/canonical';
import type { FinishReason, ToolCallDelta } from '../../providers/provider-adapter.interface';
import { anthropicErrorBody, asGatewayException } from './anthropic-messages.errors';
import { newMessageId, stopReason, toMessageUsage } from './anthropic-messages.response';
import type { AnthropicMessage } from './anthropic-messages.types';

export const PING_FRAME = 'event: ping\ndata: {"type": "ping"}\n\n';

/**
 * One stream's events as Anthropic sends them. From a translated deployment: `message_start`,
 * then per content block `content_block_start`, its deltas and `content_block_stop` (indices
 * from 0, each block closed before the next opens), then `message_delta` with the stop reason
 * and the whole usage, and `message_stop`. From a pass-through deployment: its own events as
 * they came, `message_start` naming the model the client asked for. `ping` while the upstream is
 * silent; a failure after the first event is one `error` event and no `message_stop`.
 */
export class AnthropicMessageEvents implements SseEncoder<CanonicalStreamEvent, StreamEnd> {
  readonly heartbeat = PING_FRAME;
  private started = false;
  private passThrough = false;
  /** The content block now open, and the next block's index. */
  private open?: { kind: 'text' } | { kind: 'tool'; call: number };
  private nextBlock = 0;
  /** OpenAI tool-call indices whose block was closed: they cannot take more arguments. */
  private readonly closedCalls = new Set<number>();
  private finish?: FinishReason;
  private stopSequence?: string;
  private lastWasToolUse = false;

  constructor(
    private readonly model: string,
    private readonly requestId: string,
  ) {}

  encode(batch: readonly CanonicalStreamEvent[]): string {
    let frames = '';
    for (const event of batch) {
      if (event.type === 'native') frames += this.native(event);
      else if ((event.choiceIndex ?? 0) === 0) frames += this.delta(event);
    }
    return frames;
  }

  /** A stream that ran to its end: the open block closed, the stop reason and usage, the end. */
  end({ usage }: StreamEnd): string {
    // A pass-through stream's own message_delta and message_stop were relayed already.
    if (this.passThrough) return '';
    const frames = this.start() + this.closeBlock();
    const reason = stopReason(this.finish, this.stopSequence, this.lastWasToolUse);
    return (
      frames +
      frame('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reason, stop_sequence: this.stopSequence ?? null },
        usage: toMessageUsage(usage),
      }) +
      frame('message_stop', { type: 'message_stop' })
    );
  }

  error(error: unknown): string {
    return frame('error', anthropicErrorBody(asGatewayException(error), this.requestId));
  }

  private native(event: CanonicalNativeEvent): string {
    this.passThrough = true;
    let data = event.data;
    let name = event.event;
    if (name === undefined || name === 'message_start') {
      const parsed = JSON.parse(data) as { type?: string; message?: { model?: string } };
      name ??= typeof parsed?.type === 'string' ? parsed.type : 'message';
      if (name === 'message_start' && parsed.message) {
        parsed.message.model = this.model;
        data = JSON.stringify(parsed);
      }
    }
    // One `data:` line per line of the payload, as SSE joins them (Anthropic sends one).
    if (data.includes('\n')) data = data.replace(/\n/g, '\ndata: ');
    return `event: ${name}\ndata: ${data}\n\n`;
  }

  private delta(delta: CanonicalDelta): string {
    let frames = this.start();
    if (delta.content) frames += this.text(delta.content);
    for (const call of delta.toolCalls ?? []) frames += this.toolCall(call);
    if (delta.finishReason) this.finish = delta.finishReason;
    if (delta.stopSequence !== undefined) this.stopSequence = delta.stopSequence;
    return frames;
  }

  /** message_start once, before any block: the usage is not known yet, message_delta has it. */
  private start(): string {
    if (this.started) return '';
    this.started = true;
    const message: AnthropicMessage = {
      id: newMessageId(),
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: toMessageUsage({ promptTokens: 0, completionTokens: 0 }),
    };
    return frame('message_start', { type: 'message_start', message });
  }

  private text(text: string): string {
    let frames = '';
    if (this.open?.kind !== 'text') {
      frames += this.closeBlock();
      frames += this.openBlock({ kind: 'text' }, { type: 'text', text: '' });
    }
    return frames + this.blockDelta({ type: 'text_delta', text });
  }

  private toolCall(call: ToolCallDelta): string {
    let frames = '';
    if (this.open?.kind !== 'tool' || this.open.call !== call.index) {
      // Arguments of a call whose block is closed cannot be placed any more: the provider
      // interleaved its calls, which none of the gateway's adapters does.
      if (this.closedCalls.has(call.index))
        throw new UpstreamError(
          'invalid_response',
          `tool call ${call.index} continued after another content block began`,
        );
      frames += this.closeBlock();
      frames += this.openBlock(
        { kind: 'tool', call: call.index },
        {
          type: 'tool_use',
          id: call.id ?? `toolu_${randomHex12()}`,
          name: call.function?.name ?? '',
          input: {},
        },
      );
    }
    const partial = call.function?.arguments;
    if (partial) frames += this.blockDelta({ type: 'input_json_delta', partial_json: partial });
    return frames;
  }

  private openBlock(open: NonNullable<typeof this.open>, block: unknown): string {
    this.open = open;
    this.lastWasToolUse = open.kind === 'tool';
    return frame('content_block_start', {
      type: 'content_block_start',
      index: this.nextBlock,
      content_block: block,
    });
  }

  private blockDelta(delta: unknown): string {
    return frame('content_block_delta', {
      type: 'content_block_delta',
      index: this.nextBlock,
      delta,
    });
  }

  private closeBlock(): string {
    const open = this.open;
    if (!open) return '';
    if (open.kind === 'tool') this.closedCalls.add(open.call);
    this.open = undefined;
    return frame('content_block_stop', { type: 'content_block_stop', index: this.nextBlock++ });
  }
}
