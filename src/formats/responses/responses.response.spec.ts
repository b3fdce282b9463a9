import { GatewayException } from '../../common/errors/gateway.exception';
import {
  failedResponse,
  finishedResponse,
  outputItemsOf,
  responseSkeleton,
} from './responses.response';
import { bodyPipe as pipe } from './responses-body.fixture';

const identity = { id: 'resp_1', createdAt: 1_700_000_000, model: 'claude-alias', store: true };
const USAGE = { promptTokens: 10, completionTokens: 5 };

describe('responseSkeleton', () => {
  it('echoes the request settings, with OpenAI defaults for the ones not sent', () => {
    const request = pipe.transform({ model: 'claude-alias', input: 'Hi' });
    expect(responseSkeleton(request, identity)).toEqual({
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'in_progress',
      background: false,
      completed_at: null,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: 'claude-alias',
      output: [],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: true,
      temperature: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      truncation: 'disabled',
      usage: null,
      user: null,
      metadata: {},
    });
  });

  it('echoes what the request set', () => {
    const request = pipe.transform({
      model: 'm',
      input: 'Hi',
      instructions: 'Brief.',
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 50,
      previous_response_id: 'resp_0',
      metadata: { a: 'b' },
      user: 'u',
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_object' } },
    });
    expect(responseSkeleton(request, { ...identity, store: false })).toMatchObject({
      instructions: 'Brief.',
      tools: [{ type: 'function', name: 'f', parameters: null, strict: null }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 50,
      previous_response_id: 'resp_0',
      metadata: { a: 'b' },
      user: 'u',
      reasoning: { effort: 'low', summary: null },
      text: { format: { type: 'json_object' } },
      store: false,
    });
  });
});

describe('outputItemsOf', () => {
  const customs = new Set(['apply_patch']);

  it('gives the text as one message with annotations, then each call', () => {
    const items = outputItemsOf(
      {
        content: 'Calling.',
        finishReason: 'tool_calls',
        toolCalls: [
          { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          {
            id: 'toolu_2',
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
          },
          {
            id: 'call_3',
            type: 'function',
            function: { name: 'apply_patch', arguments: 'raw text' },
          },
        ],
      },
      customs,
    );
    expect(items).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Calling.', annotations: [] }],
      },
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: 'call_1',
        name: 'f',
        arguments: '{"x":1}',
        status: 'completed',
      },
      {
        type: 'custom_tool_call',
        id: expect.stringMatching(/^ctc_/),
        call_id: 'toolu_2',
        name: 'apply_patch',
        input: '*** Begin Patch',
      },
      // A model that wrote the input itself instead of JSON keeps its text.
      {
        type: 'custom_tool_call',
        id: expect.stringMatching(/^ctc_/),
        call_id: 'call_3',
        name: 'apply_patch',
        input: 'raw text',
      },
    ]);
  });

  it('has no empty message beside calls, and an empty one when there is nothing else', () => {
    const calls = outputItemsOf(
      {
        content: null,
        finishReason: 'tool_calls',
        toolCalls: [{ function: { name: 'f', arguments: '{}' } }],
      },
      customs,
    );
    expect(calls.map((item) => item.type)).toEqual(['function_call']);
    expect(calls[0]).toMatchObject({ call_id: expect.stringMatching(/^call_/) });
    const empty = outputItemsOf({ content: '', finishReason: 'stop' }, customs);
    expect(empty).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: '' })],
      }),
    ]);
  });

  it('marks the message of a cut answer incomplete', () => {
    const [message] = outputItemsOf({ content: 'Once', finishReason: 'length' }, customs);
    expect(message).toMatchObject({ status: 'incomplete' });
  });
});

describe('finishedResponse and failedResponse', () => {
  const skeleton = responseSkeleton(pipe.transform({ model: 'm', input: 'Hi' }), identity);

  it('completes with usage in OpenAI shape', () => {
    const response = finishedResponse(skeleton, [], 'stop', {
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 3,
      reasoningTokens: 1,
    });
    expect(response).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      completed_at: expect.any(Number),
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 3 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 1 },
        total_tokens: 15,
      },
    });
  });

  it('is incomplete for max_output_tokens and a content filter', () => {
    expect(finishedResponse(skeleton, [], 'length', USAGE)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      completed_at: null,
    });
    expect(finishedResponse(skeleton, [], 'content_filter', USAGE)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
  });

  it('fails with the gateway error code and message', () => {
    const error = new GatewayException('upstream_timeout');
    expect(failedResponse(skeleton, [], error)).toMatchObject({
      status: 'failed',
      error: { code: 'upstream_timeout', message: error.message },
      usage: null,
    });
  });
});
