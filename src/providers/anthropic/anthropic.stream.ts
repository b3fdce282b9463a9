import type { ToolCallDelta, UpstreamStreamPart } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';
import { anthropicErrorFromEvent } from './anthropic.errors';
import { AnthropicUsage, mapAnthropicStopReason, mapAnthropicUsage } from './anthropic.response';

// Anthropic Messages SSE events -> adapter stream parts. One mapper per stream: it remembers the
// usage reported so far and which content block is which tool call.

export interface AnthropicSseEvent {
  /** The `event:` line; Anthropic repeats it as `data.type`, which is used when it is missing. */
  event?: string;
  /** The `data:` payload, as received. */
  data: string;
}

interface AnthropicStreamState {
  /** Usage as last reported: message_start carries the input side, message_delta the output. */
  usage: AnthropicUsage;
  /** Anthropic content-block index -> OpenAI tool-call index (0, 1, ... among tool calls only). */
  toolIndexByBlock: Map<number, number>;
  usageSent: boolean;
}

export class AnthropicStreamMapper {
  private readonly state: AnthropicStreamState = {
    usage: {},
    toolIndexByBlock: new Map(),
    usageSent: false,
  };

  map(event: AnthropicSseEvent): UpstreamStreamPart[] {
    let data: any;
    try {
      data = JSON.parse(event.data);
    } catch {
      throw new UpstreamError(
        'invalid_response',
        `stream event is not JSON: ${event.data.slice(0, 200)}`,
      );
    }
    switch (event.event ?? data?.type) {
      case 'message_start':
        this.mergeUsage(data?.message?.usage);
        return [];
      case 'content_block_start':
        return this.blockStart(data);
      case 'content_block_delta':
        return this.blockDelta(data);
      case 'message_delta': {
        this.mergeUsage(data?.usage);
        const raw = data?.delta?.stop_reason;
        if (typeof raw !== 'string') return [];
        return [{ type: 'delta', finishReason: mapAnthropicStopReason(raw), rawFinishReason: raw }];
      }
      case 'message_stop':
        return this.usagePart();
      case 'error':
        throw anthropicErrorFromEvent(data);
      default:
        // ping, content_block_stop, and event types added later carry nothing to relay.
        return [];
    }
  }

  /** True once message_stop was seen: a stream that ends before it was cut short. */
  get complete(): boolean {
    return this.state.usageSent;
  }

  private blockStart(data: any): UpstreamStreamPart[] {
    const block = data?.content_block;
    if (block?.type === 'text' && typeof block.text === 'string' && block.text.length > 0) {
      return [{ type: 'delta', content: block.text }];
    }
    if (block?.type !== 'tool_use' || typeof data.index !== 'number') return [];
    const index = this.state.toolIndexByBlock.size;
    this.state.toolIndexByBlock.set(data.index, index);
    const call: ToolCallDelta = {
      index,
      id: String(block.id),
      type: 'function',
      function: { name: String(block.name), arguments: '' },
    };
    return [{ type: 'delta', toolCalls: [call] }];
  }

  private blockDelta(data: any): UpstreamStreamPart[] {
    const delta = data?.delta;
    if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text.length > 0) {
      return [{ type: 'delta', content: delta.text }];
    }
    if (
      delta?.type === 'input_json_delta' &&
      typeof delta.partial_json === 'string' &&
      delta.partial_json.length > 0
    ) {
      const index = this.state.toolIndexByBlock.get(data.index);
      if (index === undefined)
        throw new UpstreamError(
          'invalid_response',
          `input_json_delta for unknown block ${data.index}`,
        );
      return [
        { type: 'delta', toolCalls: [{ index, function: { arguments: delta.partial_json } }] },
      ];
    }
    // thinking_delta, signature_delta and citations are not part of an OpenAI answer.
    return [];
  }

  private mergeUsage(usage: AnthropicUsage | undefined): void {
    if (!usage || typeof usage !== 'object') return;
    // message_delta's counts are cumulative, so the latest value of each field wins.
    for (const [field, value] of Object.entries(usage)) {
      if (typeof value === 'number') (this.state.usage as Record<string, number>)[field] = value;
    }
  }

  private usagePart(): UpstreamStreamPart[] {
    if (this.state.usageSent) return [];
    this.state.usageSent = true;
    return [{ type: 'usage', usage: mapAnthropicUsage(this.state.usage) }];
  }
}
