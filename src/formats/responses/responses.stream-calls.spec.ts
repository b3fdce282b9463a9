import { run, text } from './responses-stream.fixture';

describe('ResponseEvents: calls', () => {
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
});
