import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayException } from '../../../common/errors/gateway.exception';
import { MESSAGES_COMPATIBILITY } from '../messages-compatibility';
import {
  MESSAGES_FIELDS,
  parseCountTokensRequest,
  parseMessagesRequest,
} from './create-message.dto';

const CLAUDE_CODE = JSON.parse(
  readFileSync(
    join(__dirname, '../../../../test/fixtures/anthropic/claude-code-request.json'),
    'utf8',
  ),
) as { body: Record<string, unknown> };

function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.assign(
    { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] },
    extra,
  );
}

/** The 400 a body answers: its code, and the message that names the field. */
function refusal(value: Record<string, unknown>): {
  code: string;
  param: string | null;
  message: string;
} {
  try {
    parseMessagesRequest(value);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayException);
    const { code, param, message } = error as GatewayException;
    return { code, param, message };
  }
  throw new Error('the body was accepted');
}

describe('parseMessagesRequest', () => {
  it('accepts the recorded Claude Code request and returns the same object', () => {
    const recorded = structuredClone(CLAUDE_CODE.body);
    const before = JSON.stringify(recorded);
    expect(parseMessagesRequest(recorded)).toBe(recorded);
    // Nothing is added, removed or reordered: pass-through sends the client's value.
    expect(JSON.stringify(recorded)).toBe(before);
  });

  it('keeps fields it does not know, at the top level and in blocks', () => {
    const value = body({
      context_management: { edits: [] },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'search_result', source: 'https://example.com', title: 't', content: [] },
            { type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
      ],
    });
    expect(parseMessagesRequest(value)).toEqual(value);
  });

  it.each([
    [{ max_tokens: undefined }, 'max_tokens', 'max_tokens: Field required'],
    [{ max_tokens: 0 }, 'max_tokens', 'max_tokens: Input should be greater than or equal to 1'],
    [{ max_tokens: 1.5 }, 'max_tokens', 'max_tokens: Input should be a valid integer'],
    [
      { max_tokens: 1e308 },
      'max_tokens',
      'max_tokens: Input should be less than or equal to 2147483647',
    ],
    [{ model: '' }, 'model', 'model: String should have at least 1 character'],
    [{ model: 7 }, 'model', 'model: Input should be a valid string'],
    [{ messages: [] }, 'messages', 'messages: at least one message is required'],
    [{ messages: 'Hi' }, 'messages', 'messages: Input should be a valid list'],
    [
      { messages: [{ role: 'tool', content: 'x' }] },
      'messages.0.role',
      "messages.0.role: Input should be 'user', 'assistant', 'system'",
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'messages.0.content.0.text',
      'messages.0.content.0.text: Field required',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'gif' } }] }] },
      'messages.0.content.0.source.type',
      "messages.0.content.0.source.type: Input should be 'base64', 'url', 'file'",
    ],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'AA==' } }] },
        ],
      },
      'messages.0.content.0.source.media_type',
      'messages.0.content.0.source.media_type: Field required',
    ],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] },
        ],
      },
      'messages.0.content.0',
      'messages.0.content.0: tool_use blocks are only allowed in assistant messages',
    ],
    [
      {
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b', input: [] }] },
        ],
      },
      'messages.0.content.0.input',
      'messages.0.content.0.input: Input should be an object',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] },
      'messages.0.content.0.tool_use_id',
      'messages.0.content.0.tool_use_id: Field required',
    ],
    [
      { system: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] },
      'system.0.type',
      "system.0.type: Input should be 'text'",
    ],
    [{ temperature: 1.5 }, 'temperature', 'temperature: Input should be between 0 and 1'],
    [
      { stop_sequences: ['a', 3] },
      'stop_sequences.1',
      'stop_sequences.1: Input should be a valid string',
    ],
    [
      { metadata: { user_id: 5 } },
      'metadata.user_id',
      'metadata.user_id: Input should be a valid string',
    ],
    [
      { tools: [{ name: 'get_weather' }] },
      'tools.0.input_schema',
      'tools.0.input_schema: Field required',
    ],
    [{ tool_choice: { type: 'tool' } }, 'tool_choice.name', 'tool_choice.name: Field required'],
    [
      { tool_choice: { type: 'required' } },
      'tool_choice.type',
      "tool_choice.type: Input should be 'auto', 'any', 'tool', 'none'",
    ],
    [
      { thinking: { type: 'enabled' } },
      'thinking.budget_tokens',
      'thinking.budget_tokens: Field required',
    ],
    [{ stream: 'yes' }, 'stream', 'stream: Input should be a valid boolean'],
  ])('refuses %j naming %s', (extra, param, message) => {
    expect(refusal(body(extra))).toEqual({ code: 'invalid_parameter', param, message });
  });

  it('lets thinking settings other than enabled pass, and server tools without a schema', () => {
    for (const thinking of [{ type: 'adaptive', display: 'omitted' }, { type: 'disabled' }])
      expect(() => parseMessagesRequest(body({ thinking }))).not.toThrow();
    expect(() =>
      parseMessagesRequest(
        body({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }),
      ),
    ).not.toThrow();
  });

  it('takes null as absent for optional fields', () => {
    expect(() =>
      parseMessagesRequest(body({ system: null, tools: null, metadata: null, stream: null })),
    ).not.toThrow();
  });
});

describe('parseCountTokensRequest', () => {
  it('needs no max_tokens, and still checks one that is sent', () => {
    expect(() => parseCountTokensRequest(body({ max_tokens: undefined }))).not.toThrow();
    expect(() => parseCountTokensRequest(body({ max_tokens: -1 }))).toThrow(
      'max_tokens: Input should be greater than or equal to 1',
    );
  });
});

describe('the /v1/messages compatibility table', () => {
  it('lists every field the body validation reads, and reads every field it translates', () => {
    const table = MESSAGES_COMPATIBILITY as Record<string, { handling: string }>;
    for (const field of MESSAGES_FIELDS) expect(Object.keys(table)).toContain(field);
    const read = Object.keys(table).filter((field) => table[field].handling !== 'dropped');
    for (const field of read) expect(MESSAGES_FIELDS).toContain(field);
  });
});
