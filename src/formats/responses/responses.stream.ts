import { GatewayException } from '../../common/errors/gateway.exception';
import { deliberateError } from '../../common/filters/error-envelope';
import type { SseEncoder } from '../../common/sse/sse-encoder';
import { eventFrame, HEARTBEAT_COMMENT } from '../../common/sse/sse-frames';
import type { CanonicalStreamEvent, StreamEnd } from '../../pipeline/canonical';
import type { FinishReason, ToolCallDelta } from '../../providers/provider-adapter.interface';
import { newItemId } from './response-ids';
import {
  callItem,
  failedResponse,
  finishedResponse,
  finishedStatus,
  newCallId,
  outputMessage,
} from './responses.response';
import type { ItemStatus, OutputItem, OutputMessage, ResponseObject } from './responses.types';

export interface ResponseEventsOptions {
  /** The response as response.created shows it (responseSkeleton). */
  skeleton: ResponseObject;
  customNames: ReadonlySet<string>;
  /**
   * Stores the finished response, when its `store` is true, before the last event is written:
   * a client may continue from it as soon as it reads response.completed. Resolves false when it
   * could not be stored, which the last event then says (`store: false`).
   */
  persist: (response: ResponseObject) => Promise<boolean>;
}

interface OpenMessage {
  item: OutputMessage;
  outputIndex: number;
}

interface OpenCall {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
  custom: boolean;
  /** Set once output_item.added is sent, which waits for the call's name. */
  outputIndex?: number;
}

const OUTPUT_TEXT = { type: 'output_text', annotations: [] } as const;

/**
 * A provider's stream parts as Responses events, with a sequence_number from 0 up by one. Items
 * open as their first part arrives and close when the next kind of item starts or the stream
 * ends: the message first, then the calls, which stay open together because a provider may
 * interleave the arguments of parallel calls. The events' ids are those of the final response.
 */
export class ResponseEvents implements SseEncoder<CanonicalStreamEvent, StreamEnd> {
  readonly heartbeat = HEARTBEAT_COMMENT;
  private sequence = 0;
  private started = false;
  private readonly output: OutputItem[] = [];
  private message?: OpenMessage;
  private readonly calls = new Map<number, OpenCall>();
  private finishReason?: FinishReason;

  constructor(private readonly options: ResponseEventsOptions) {}

  encode(batch: readonly CanonicalStreamEvent[]): string {
    let frames = this.start();
    for (const part of batch) {
      // Pass-through events never reach this format: it sends no native body.
      if (part.type !== 'delta') continue;
      if (part.content) frames += this.text(part.content);
      if (part.toolCalls) for (const delta of part.toolCalls) frames += this.toolCall(delta);
      if (part.finishReason) this.finishReason = part.finishReason;
    }
    return frames;
  }

  /** The closing events, then response.completed or .incomplete once the response is stored. */
  async end({ usage }: StreamEnd): Promise<string> {
    const itemStatus =
      finishedStatus(this.finishReason).status === 'completed' ? 'completed' : 'incomplete';
    let frames = this.start();
    // An answer with no output at all is an empty message, as the JSON answer has it.
    if (this.output.length === 0 && this.calls.size === 0) frames += this.openMessage();
    frames += this.closeMessage(itemStatus) + this.closeCalls();
    let response = finishedResponse(this.options.skeleton, this.output, this.finishReason, usage);
    if (response.store && !(await this.options.persist(response)))
      response = { ...response, store: false };
    frames += this.event(
      response.status === 'completed' ? 'response.completed' : 'response.incomplete',
      { response },
    );
    return frames;
  }

  /** response.failed: the output so far, and the error the client would have had as JSON. */
  error(error: unknown): string {
    const cause = deliberateError(error) ?? new GatewayException('internal_error');
    if (this.message) this.message.item.status = 'incomplete';
    // Open calls as far as they came; a function call's arguments may be cut short.
    for (const call of this.calls.values()) {
      if (call.outputIndex === undefined) continue;
      const item = this.finishedCall(call);
      if (item.type === 'function_call') item.status = 'incomplete';
      this.output[call.outputIndex] = item;
    }
    const response = failedResponse(this.options.skeleton, this.output, cause);
    return this.start() + this.event('response.failed', { response });
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const response = this.options.skeleton;
    return (
      this.event('response.created', { response }) +
      this.event('response.in_progress', { response })
    );
  }

  private text(delta: string): string {
    const frames = this.message ? '' : this.closeCalls() + this.openMessage();
    const { item, outputIndex } = this.message!;
    item.content[0].text += delta;
    return (
      frames +
      this.event('response.output_text.delta', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  private openMessage(): string {
    const item = outputMessage(newItemId('message'), '', 'in_progress');
    const outputIndex = this.output.push(item) - 1;
    this.message = { item, outputIndex };
    return (
      this.event('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, content: [] },
      }) +
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: { ...OUTPUT_TEXT, text: '' },
      })
    );
  }

  private closeMessage(status: ItemStatus): string {
    if (!this.message) return '';
    const { item, outputIndex } = this.message;
    this.message = undefined;
    item.status = status;
    const text = item.content[0].text;
    const where = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    return (
      this.event('response.output_text.done', { ...where, text, logprobs: [] }) +
      this.event('response.content_part.done', { ...where, part: { ...OUTPUT_TEXT, text } }) +
      this.event('response.output_item.done', { output_index: outputIndex, item })
    );
  }

  private toolCall(delta: ToolCallDelta): string {
    let frames = '';
    let call = this.calls.get(delta.index);
    if (!call) {
      frames += this.closeMessage('completed');
      call = { itemId: '', callId: '', name: '', arguments: '', custom: false };
      this.calls.set(delta.index, call);
    }
    if (delta.id && call.outputIndex === undefined) call.callId = delta.id;
    if (delta.function?.name && call.outputIndex === undefined) call.name = delta.function.name;
    const piece = delta.function?.arguments ?? '';
    call.arguments += piece;
    if (call.outputIndex === undefined) return call.name ? frames + this.addCall(call) : frames;
    if (piece && !call.custom) frames += this.argumentsDelta(call, piece);
    return frames;
  }

  /** output_item.added for a call, with the arguments that came before its name. */
  private addCall(call: OpenCall): string {
    call.custom = this.options.customNames.has(call.name);
    call.callId ||= newCallId();
    call.itemId = newItemId(call.custom ? 'custom_tool_call' : 'function_call');
    const item = callItem(call.callId, call.name, '', this.options.customNames, call.itemId);
    call.outputIndex = this.output.push(item) - 1;
    const added = item.type === 'function_call' ? { ...item, status: 'in_progress' } : item;
    let frames = this.event('response.output_item.added', {
      output_index: call.outputIndex,
      item: added,
    });
    if (call.arguments && !call.custom) frames += this.argumentsDelta(call, call.arguments);
    return frames;
  }

  private argumentsDelta(call: OpenCall, delta: string): string {
    return this.event('response.function_call_arguments.delta', {
      item_id: call.itemId,
      output_index: call.outputIndex,
      delta,
    });
  }

  /**
   * Closes every open call in the order they opened. A custom call's input is sent whole here:
   * it arrives as JSON-encoded function arguments and is only known once they are complete.
   */
  private closeCalls(): string {
    let frames = '';
    for (const call of this.calls.values()) {
      if (call.outputIndex === undefined) frames += this.addCall(call);
      const outputIndex = call.outputIndex!;
      const item = this.finishedCall(call);
      this.output[outputIndex] = item;
      const where = { item_id: call.itemId, output_index: outputIndex };
      if (item.type === 'custom_tool_call') {
        if (item.input)
          frames += this.event('response.custom_tool_call_input.delta', {
            ...where,
            delta: item.input,
          });
        frames += this.event('response.custom_tool_call_input.done', {
          ...where,
          input: item.input,
        });
      } else {
        frames += this.event('response.function_call_arguments.done', {
          ...where,
          name: call.name,
          arguments: call.arguments,
        });
      }
      frames += this.event('response.output_item.done', { output_index: outputIndex, item });
    }
    this.calls.clear();
    return frames;
  }

  /** The output item of a call as far as its arguments came, with the id its events carry. */
  private finishedCall(call: OpenCall): OutputItem {
    return callItem(call.callId, call.name, call.arguments, this.options.customNames, call.itemId);
  }

  private event(type: string, payload: Record<string, unknown>): string {
    return eventFrame(type, Object.assign({ type, sequence_number: this.sequence++ }, payload));
  }
}
