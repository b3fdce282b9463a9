import { expectRefused, parseBody as parse } from '../responses-body.fixture';

describe('tools and tool_choice', () => {
  it('takes function and custom tools and echoes them in one shape', () => {
    const request = parse({
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
        { type: 'function', name: 'now' },
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Edit files',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
        },
        { type: 'custom', name: 'note', format: { type: 'text' } },
      ],
    });
    expect(request.tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: true,
      },
      { type: 'function', name: 'now', parameters: null, strict: null },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Edit files',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
      },
      { type: 'custom', name: 'note', format: { type: 'text' } },
    ]);
  });

  it.each([
    'web_search',
    'web_search_preview',
    'file_search',
    'code_interpreter',
    'computer_use_preview',
    'image_generation',
    'mcp',
    'local_shell',
    'shell',
    'apply_patch',
    'tool_search',
  ])('refuses the built-in tool %s with unsupported_tool, never dropping it', (type) => {
    const error = expectRefused(
      { tools: [{ type: 'function', name: 'f' }, { type }] },
      'tools[1].type',
      'unsupported_tool',
    );
    expect(error.message).toContain(type);
  });

  it.each([
    [{ tools: [{ type: 'function' }] }, 'tools[0].name'],
    [{ tools: [{ type: 'function', name: 'f', parameters: 'x' }] }, 'tools[0].parameters'],
    [
      {
        tools: [
          { type: 'function', name: 'f' },
          { type: 'custom', name: 'f' },
        ],
      },
      'tools[1].name',
    ],
    [
      { tools: [{ type: 'custom', name: 'c', format: { type: 'grammar' } }] },
      'tools[0].format.syntax',
    ],
    [{ tools: {} }, 'tools'],
    [{ tool_choice: 'any' }, 'tool_choice'],
    [{ tool_choice: { type: 'function', name: 'missing' } }, 'tool_choice.name'],
    [{ tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }, 'tool_choice.tools'],
    [{ text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema'],
    [{ text: { format: { type: 'xml' } } }, 'text.format.type'],
    [{ text: { verbosity: 'loud' } }, 'text.verbosity'],
    [{ reasoning: { summary: 'long' } }, 'reasoning.summary'],
    [{ max_output_tokens: 0 }, 'max_output_tokens'],
    [{ temperature: 3 }, 'temperature'],
    [{ top_p: -1 }, 'top_p'],
    [{ store: 'yes' }, 'store'],
    [{ previous_response_id: '' }, 'previous_response_id'],
    [{ metadata: { a: 1 } }, 'metadata.a'],
    [{ include: [1] }, 'include[0]'],
    [{ model: '' }, 'model'],
    [{ input: null }, 'input'],
  ])('refuses %j naming %s', (body, param) => {
    expectRefused(body, param);
  });

  it('refuses more than 16 metadata keys', () => {
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    expectRefused({ metadata }, 'metadata');
  });

  it('refuses a choice of a built-in tool with unsupported_tool', () => {
    expectRefused({ tool_choice: { type: 'file_search' } }, 'tool_choice.type', 'unsupported_tool');
    expectRefused(
      {
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'mcp' }] },
      },
      'tool_choice.tools[0].type',
      'unsupported_tool',
    );
  });
});
