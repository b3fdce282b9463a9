import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import { AnthropicStreamMapper } from '../../providers/anthropic/anthropic.stream';
import { GeminiStreamMapper } from '../../providers/gemini/gemini.stream';
import { mapStreamEvent } from '../../providers/openai/openai.mapping';
import type { TokenUsage, UpstreamStreamPart } from '../../providers/provider-adapter.interface';
import { customToolNames } from './custom-tools';
import { bodyPipe } from './responses-body.fixture';
import { toChatForm } from './responses.request';
import { responseSkeleton } from './responses.response';
import { ResponseEvents } from './responses.stream';

// The Codex request (test/fixtures/codex: a Codex CLI turn as published captures show it, long
// texts abridged: its tools with the custom apply_patch, store: false, include, prompt_cache_key,
// text.verbosity) and each provider's stream of an apply_patch call, through the Responses
// translation: the patch comes back byte for byte as a custom_tool_call.

const FIXTURES = join(__dirname, '../../../test/fixtures');
const fixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');
const PATCH = '*** Begin Patch\n*** Update File: README.md\n@@\n # Demo\n+hi\n*** End Patch\n';

function sseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(text);
  return events;
}

const codexBody = () => JSON.parse(fixture('codex/request.json')) as Record<string, unknown>;
const codexRequest = () => bodyPipe.transform(codexBody());

async function encode(parts: UpstreamStreamPart[]) {
  const request = codexRequest();
  const events = new ResponseEvents({
    skeleton: responseSkeleton(request, {
      id: 'resp_1',
      createdAt: 1,
      model: request.model,
      store: false,
    }),
    customNames: customToolNames(request.tools),
    persist: () => Promise.reject(new Error('store: false is never stored')),
  });
  const usage = parts.find((part) => part.type === 'usage')?.usage as TokenUsage;
  const deltas = parts.filter((part) => part.type === 'delta');
  const deployment = { name: 'd' } as DeploymentConfig;
  const frames = events.encode(deltas) + (await events.end({ usage, deployment }));
  const last = frames.trimEnd().split('\n').pop()!;
  return JSON.parse(last.slice('data: '.length)) as { type: string; response: any };
}

describe('the recorded Codex request', () => {
  it('is read with its tools, store: false and include; unknown fields are dropped', () => {
    const request = codexRequest();
    expect(request.store).toBe(false);
    expect(request.stream).toBe(true);
    expect(request.include).toEqual(['reasoning.encrypted_content']);
    expect(request.tools.map((tool) => `${tool.type}:${tool.name}`)).toEqual([
      'function:exec_command',
      'function:write_stdin',
      'function:update_plan',
      'custom:apply_patch',
      'function:view_image',
    ]);
    expect(Object.keys(request)).not.toContain('prompt_cache_key');
  });

  it('becomes a chat request: instructions first, reasoning dropped, apply_patch a function', () => {
    const form = toChatForm(codexRequest());
    expect(form.messages.map((turn) => turn.role)).toEqual([
      'system',
      'developer',
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    expect(form.messages[4].tool_calls).toEqual([
      {
        id: 'call_Qx7pA2mN4bV9kR1s',
        type: 'function',
        function: { name: 'exec_command', arguments: expect.stringContaining('cat README.md') },
      },
    ]);
    const tools = form.parameters.tools as Array<{
      function: { name: string; parameters: unknown };
    }>;
    expect(tools[3].function).toMatchObject({
      name: 'apply_patch',
      parameters: { required: ['input'] },
    });
    expect(form.parameters).toMatchObject({
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning_effort: 'medium',
    });
  });

  it('with web_search among its tools is refused, naming the tool', () => {
    const body = codexBody();
    body.tools = [...(body.tools as unknown[]), { type: 'web_search', external_web_access: false }];
    expect(() => bodyPipe.transform(body)).toThrow(
      expect.objectContaining({ code: 'unsupported_tool', param: 'tools[5].type' }),
    );
  });
});

describe('an apply_patch call streamed by each provider', () => {
  const expectPatchCall = (
    last: { type: string; response: any },
    callId: string | RegExp,
    usage: Record<string, unknown>,
  ) => {
    expect(last.type).toBe('response.completed');
    expect(last.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: 'Adding the line.' })],
      }),
      {
        type: 'custom_tool_call',
        id: expect.stringMatching(/^ctc_/),
        call_id: typeof callId === 'string' ? callId : expect.stringMatching(callId),
        name: 'apply_patch',
        input: PATCH,
      },
    ]);
    expect(last.response.usage).toMatchObject(usage);
  };

  it('OpenAI', async () => {
    const parts = sseEvents(fixture('openai/stream-apply-patch.sse'))
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => mapStreamEvent(event.data));
    expectPatchCall(await encode(parts), 'call_Pt3kW8zY5nL2', {
      input_tokens: 2480,
      input_tokens_details: { cached_tokens: 2048 },
      output_tokens_details: { reasoning_tokens: 64 },
    });
  });

  it('Anthropic', async () => {
    const mapper = new AnthropicStreamMapper();
    const parts = sseEvents(fixture('anthropic/stream-apply-patch.sse')).flatMap((event) =>
      mapper.map({ event: event.event, data: event.data }),
    );
    expectPatchCall(await encode(parts), 'toolu_01ApplyPatchB7', {
      input_tokens: 412 + 2048,
      input_tokens_details: { cached_tokens: 2048 },
      output_tokens: 91,
    });
  });

  it('Gemini', async () => {
    const mapper = new GeminiStreamMapper();
    const parts = sseEvents(fixture('gemini/stream-apply-patch.sse')).flatMap((event) =>
      mapper.map(event.data),
    );
    const last = await encode(parts);
    // Gemini has no call ids: the adapter's id carries the thought signature back.
    expectPatchCall(last, /.+/, {
      input_tokens: 2460,
      input_tokens_details: { cached_tokens: 2048 },
    });
  });
});
