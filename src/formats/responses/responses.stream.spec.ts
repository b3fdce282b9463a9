import { GatewayException } from '../../common/errors/gateway.exception';
import type { UpstreamStreamPart } from '../../providers/provider-adapter.interface';
import { ResponsesBodyPipe } from './responses-body.pipe';
import { responseSkeleton } from './responses.response';
import { ResponseEvents } from './responses.stream';
import type { ResponseObject } from './responses.types';

interface WireEvent {
  type: string;
  sequence_number: number;
  [field: string]: any;
}

const pipe = new ResponsesBodyPipe();
const USAGE = { promptTokens: 20, completionTokens: 7, cachedTokens: 4, reasoningTokens: 2 };

function encoder(body: Record<string, unknown> = {}, persist = jest.fn(async () => true)) {
  const request = pipe.transform({ model: 'alias-model', input: 'Hi', ...body });
  const skeleton = responseSkeleton(request, {
    id: 'resp_test',
    createdAt: 1_700_000_000,
    model: 'alias-model',
    store: request.store ?? true,
  });
  const names = new Set(request.tools.filter((t) => t.type === 'custom').map((t) => t.name));
  return { events: new ResponseEvents({ skeleton, customNames: names, persist }), persist };
}

/** Parses frames, checking each is `event: <type>` + `data: <json>` with the same type. */
function parse(frames: string): WireEvent[] {
  return frames
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      const data = JSON.parse(dataLine.slice('data: '.length)) as WireEvent;
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
}

async function run(
  batches: UpstreamStreamPart[][],
  body: Record<string, unknown> = {},
  persist?: jest.Mock,
) {
  const { events, persist: stored } = encoder(body, persist);
  let frames = '';
  for (const batch of batches) frames += events.encode(batch);
  frames += await events.end({ usage: USAGE });
  const wire = parse(frames);
  expect(wire.map((event) => event.sequence_number)).toEqual(wire.map((_, index) => index));
  return { wire, types: wire.map((event) => event.type), last: wire[wire.length - 1], stored };
}

const text = (content: string, finishReason?: 'stop' | 'length'): UpstreamStreamPart => ({
  type: 'delta',
  content,
  ...(finishReason ? { finishReason } : {}),
});

describe('ResponseEvents', () => {
  it('streams a message and ends with the stored, completed response', async () => {
    const { wire, types, last, stored } = await run([
      [text('Hel')],
      [text('lo'), text(' there', 'stop')],
    ]);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(wire[0].response).toMatchObject({
      id: 'resp_test',
      object: 'response',
      status: 'in_progress',
      model: 'alias-model',
      output: [],
      usage: null,
    });
    const itemId = wire[2].item.id as string;
    expect(itemId).toMatch(/^msg_/);
    expect(wire[2].item).toEqual({
      type: 'message',
      id: itemId,
      role: 'assistant',
      status: 'in_progress',
      content: [],
    });
    expect(
      wire.slice(3, 10).every((event) => event.item_id === itemId || event.item?.id === itemId),
    ).toBe(true);
    expect(wire[7]).toMatchObject({ text: 'Hello there', output_index: 0, content_index: 0 });
    const response = last.response as ResponseObject;
    expect(response).toMatchObject({
      id: 'resp_test',
      status: 'completed',
      store: true,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          id: itemId,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello there', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 20,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 27,
      },
    });
    expect(response.completed_at).toEqual(expect.any(Number));
    expect(stored).toHaveBeenCalledWith(response);
  });

  it('closes the message before the calls, whose ids and arguments match the final output', async () => {
    const { wire, types, last } = await run(
      [
        [text('Let me check.')],
        [
          {
            type: 'delta',
            toolCalls: [
              {
                index: 0,
                id: 'call_A',
                type: 'function',
                function: { name: 'get_weather', arguments: '' },
              },
            ],
          },
        ],
        [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '{"city":' } }] }],
        [
          {
            type: 'delta',
            toolCalls: [
              {
                index: 1,
                id: 'call_B',
                function: { name: 'get_weather', arguments: '{"city":"Bergen"}' },
              },
            ],
          },
        ],
        // The first call's last piece after the second began: parallel calls may interleave.
        [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }],
        [{ type: 'delta', finishReason: 'tool_calls' }],
      ],
      { tools: [{ type: 'function', name: 'get_weather' }] },
    );
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const [first, second] = [wire[8].item, wire[10].item];
    expect(first).toMatchObject({
      type: 'function_call',
      status: 'in_progress',
      call_id: 'call_A',
      name: 'get_weather',
      arguments: '',
    });
    expect(wire[12]).toMatchObject({ item_id: first.id, output_index: 1, delta: '"Oslo"}' });
    expect(wire[13]).toMatchObject({
      item_id: first.id,
      arguments: '{"city":"Oslo"}',
      name: 'get_weather',
    });
    expect(last.response.output).toEqual([
      expect.objectContaining({ type: 'message', status: 'completed' }),
      {
        type: 'function_call',
        id: first.id,
        call_id: 'call_A',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
      {
        type: 'function_call',
        id: second.id,
        call_id: 'call_B',
        name: 'get_weather',
        arguments: '{"city":"Bergen"}',
        status: 'completed',
      },
    ]);
  });

  it('answers a custom tool with a custom_tool_call carrying the raw input', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    const encoded = JSON.stringify({ input: patch });
    const { wire, types, last } = await run(
      [
        [
          {
            type: 'delta',
            toolCalls: [{ index: 0, id: 'toolu_1', function: { name: 'apply_patch' } }],
          },
        ],
        [
          {
            type: 'delta',
            toolCalls: [{ index: 0, function: { arguments: encoded.slice(0, 20) } }],
          },
        ],
        [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: encoded.slice(20) } }] }],
        [{ type: 'delta', finishReason: 'tool_calls' }],
      ],
      { tools: [{ type: 'custom', name: 'apply_patch' }] },
    );
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const id = wire[2].item.id as string;
    expect(id).toMatch(/^ctc_/);
    expect(wire[2].item).toEqual({
      type: 'custom_tool_call',
      id,
      call_id: 'toolu_1',
      name: 'apply_patch',
      input: '',
    });
    expect(wire[4]).toMatchObject({ item_id: id, input: patch });
    expect(last.response.output).toEqual([
      { type: 'custom_tool_call', id, call_id: 'toolu_1', name: 'apply_patch', input: patch },
    ]);
  });

  it('holds arguments that come before the call is named', async () => {
    const { wire } = await run([
      [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '{"a"' } }] }],
      [
        {
          type: 'delta',
          toolCalls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: ':1}' } }],
        },
      ],
    ]);
    expect(wire[2]).toMatchObject({
      type: 'response.output_item.added',
      item: { call_id: 'call_1', name: 'f' },
    });
    expect(wire[3]).toMatchObject({
      type: 'response.function_call_arguments.delta',
      delta: '{"a":1}',
    });
  });

  it('ends a cut answer with response.incomplete', async () => {
    const { last } = await run([[text('Once upon', 'length')]]);
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      completed_at: null,
      output: [expect.objectContaining({ status: 'incomplete' })],
    });
  });

  it('waits for the store before the last event, and says so when it failed', async () => {
    let release!: (stored: boolean) => void;
    const persist = jest.fn(() => new Promise<boolean>((resolve) => (release = resolve)));
    const { events } = encoder({}, persist);
    events.encode([text('Hi', 'stop')]);
    let ended = false;
    const ending = events.end({ usage: USAGE }).then((frames) => {
      ended = true;
      return frames;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(persist).toHaveBeenCalledTimes(1);
    expect(ended).toBe(false);
    release(false);
    const last = parse(await ending).pop()!;
    expect(last).toMatchObject({ type: 'response.completed', response: { store: false } });
  });

  it('does not store a response the request asked not to store', async () => {
    const persist = jest.fn(async () => true);
    const { last } = await run([[text('Hi', 'stop')]], { store: false }, persist);
    expect(persist).not.toHaveBeenCalled();
    expect(last.response.store).toBe(false);
  });

  it('ends a stream failing after its first event with response.failed', () => {
    const { events } = encoder();
    const frames =
      events.encode([text('Partial')]) +
      events.error(new GatewayException('upstream_error', { message: 'The provider went away.' }));
    const wire = parse(frames);
    expect(wire.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(wire[5]).toMatchObject({
      type: 'response.failed',
      response: {
        id: 'resp_test',
        status: 'failed',
        error: { code: 'upstream_error', message: 'The provider went away.' },
        output: [{ type: 'message', id: wire[2].item.id, status: 'incomplete' }],
      },
    });
    expect(parse(events.error(new Error('boom')))[0].response.error.code).toBe('internal_error');
  });

  it('answers a stream with no output at all with an empty message, as JSON does', async () => {
    const { types, last } = await run([[{ type: 'delta', finishReason: 'stop' }]]);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(last.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: '' })],
      }),
    ]);
  });
});
