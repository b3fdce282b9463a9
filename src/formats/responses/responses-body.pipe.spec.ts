import {
  bodyPipe as pipe,
  expectRefused,
  parseBody as parse,
  refusal,
} from './responses-body.fixture';

describe('ResponsesBodyPipe', () => {
  it('reads a string input as one user message and drops fields it does not know', () => {
    const request = pipe.transform({
      model: 'alpha-k3',
      input: 'Hello',
      prompt_cache_key: 'abc',
      client_metadata: { turn: '1' },
      truncation: 'auto',
    });
    expect(request).toEqual({
      model: 'alpha-k3',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] }],
      tools: [],
    });
  });

  it('takes messages of every role, in the easy form too, with content as parts', () => {
    const request = parse({
      input: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'system', content: [{ type: 'input_text', text: 'Rules' }] },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'https://example.com/cat.png' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
          ],
        },
        { role: 'assistant', content: 'A cat.', id: 'msg_1', status: 'completed' },
        {
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Yes', annotations: [], logprobs: [] },
            { type: 'refusal', refusal: 'No more.' },
          ],
        },
      ],
    });
    expect(request.input).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Rules' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this?' },
          { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
        ],
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        content: [{ type: 'output_text', text: 'A cat.', annotations: [] }],
      },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Yes', annotations: [] },
          { type: 'refusal', refusal: 'No more.' },
        ],
      },
    ]);
  });

  it('takes calls, their outputs and reasoning items', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' };
    const request = parse({
      input: [
        reasoning,
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
        },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp":3}' },
        {
          type: 'custom_tool_call',
          call_id: 'call_2',
          name: 'apply_patch',
          input: '*** Begin Patch',
        },
        {
          type: 'custom_tool_call_output',
          call_id: 'call_2',
          output: [{ type: 'input_text', text: 'Done' }],
        },
      ],
    });
    expect(request.input).toEqual([
      reasoning,
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
      },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temp":3}' },
      {
        type: 'custom_tool_call',
        call_id: 'call_2',
        name: 'apply_patch',
        input: '*** Begin Patch',
      },
      {
        type: 'custom_tool_call_output',
        call_id: 'call_2',
        output: [{ type: 'input_text', text: 'Done' }],
      },
    ]);
  });

  it.each([
    [{ input: 42 }, 'input'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [{ input: [{ type: 'web_search_call', id: 'ws_1' }] }, 'input[0].type'],
    [{ input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    [{ input: [{ role: 'user', content: [] }] }, 'input[0].content'],
    [
      { input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] },
      'input[0].content[0].type',
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] },
      'input[0].content[0].type',
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] },
      'input[0].content[0].file_id',
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/y.png' }] }] },
      'input[0].content[0].image_url',
    ],
    [{ input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }, 'input[0].arguments'],
    [{ input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    [
      { input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_file' }] }] },
      'input[0].output[0].type',
    ],
  ])('refuses the input %j naming %s', (body, param) => {
    expectRefused(body, param);
  });

  it('takes the settings the issue lists, each as sent', () => {
    const settings = {
      instructions: 'Answer in French.',
      tools: [
        { type: 'function', name: 'f' },
        { type: 'custom', name: 'c' },
      ],
      tool_choice: {
        type: 'allowed_tools',
        mode: 'required',
        tools: [{ type: 'custom', name: 'c' }],
      },
      parallel_tool_calls: false,
      max_output_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      reasoning: { effort: 'high', summary: 'auto' },
      stream: true,
      store: false,
      previous_response_id: 'resp_123',
      metadata: { team: 'a' },
      user: 'u-1',
      include: ['reasoning.encrypted_content'],
    };
    expect(parse(structuredClone(settings))).toMatchObject(settings);
  });

  it('counts null as absent', () => {
    const request = parse({ instructions: null, temperature: null, tools: null, store: null });
    expect(request).toEqual({
      model: 'alpha-k3',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      tools: [],
    });
  });

  it('answers invalid_body for a body that is not an object', () => {
    expect(refusal([1, 2]).code).toBe('invalid_body');
  });

  it('bounds the body shape before reading it', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 70; level++) deep = [deep];
    expect(refusal({ model: 'm', input: deep }).code).toBe('invalid_parameter');
  });
});
