import { GatewayException } from '../../common/errors/gateway.exception';
import { UpstreamError } from '../../common/errors/upstream.error';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { CanonicalStreamEvent } from '../../pipeline/canonical';
import { ChatCompletionChunks, DONE_FRAME } from './chat-completions.stream';

const deployment = { name: 'alpha-k3/0' } as DeploymentConfig;

/** The frames with the per-stream id and timestamp masked. */
const masked = (frames: string) => frames.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":_');

describe('ChatCompletionChunks', () => {
  it('serialises chunks with the keys in the wire order, usage last when asked for, then [DONE]', () => {
    const chunks = new ChatCompletionChunks('alpha-k3', true);
    const frames =
      chunks.encode([{ type: 'delta', content: 'Hi', finishReason: 'stop' }]) +
      chunks.end({ usage: { promptTokens: 3, completionTokens: 1 }, deployment });
    expect(masked(frames)).toBe(
      'data: {"id":_,"object":"chat.completion.chunk","created":_,"model":"alpha-k3","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop","logprobs":null}]}\n\n' +
        'data: {"id":_,"object":"chat.completion.chunk","created":_,"model":"alpha-k3","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n' +
        DONE_FRAME,
    );
    expect(DONE_FRAME).toBe('data: [DONE]\n\n');
  });

  it('closes with [DONE] alone when usage was not asked for', () => {
    const chunks = new ChatCompletionChunks('alpha-k3', false);
    expect(chunks.end({ usage: { promptTokens: 3, completionTokens: 1 }, deployment })).toBe(
      DONE_FRAME,
    );
  });

  it('writes a batch as consecutive chunks of one id, the role on the first delta of each choice', () => {
    const chunks = new ChatCompletionChunks('alpha-k3', false);
    const batch: CanonicalStreamEvent[] = [
      { type: 'delta', content: 'Hel' },
      { type: 'delta', content: 'lo', choiceIndex: 1 },
      { type: 'delta', content: '!' },
    ];
    const frames = (chunks.encode(batch) + chunks.encode([{ type: 'delta', finishReason: 'stop' }]))
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.slice('data: '.length)));

    expect(new Set(frames.map((chunk) => chunk.id)).size).toBe(1);
    expect(frames[0].id).toMatch(/^chatcmpl_[0-9a-f]{24}$/);
    expect(frames.map((chunk) => [chunk.choices[0].index, chunk.choices[0].delta])).toEqual([
      [0, { role: 'assistant', content: 'Hel' }],
      [1, { role: 'assistant', content: 'lo' }],
      [0, { content: '!' }],
      [0, {}],
    ]);
  });

  it('sends a gateway error in its own envelope and hides unknown errors behind internal_error', () => {
    const chunks = new ChatCompletionChunks('alpha-k3', false);
    const payload = (frame: string) => JSON.parse(frame.slice('data: '.length));
    expect(payload(chunks.error(new GatewayException('upstream_timeout')))).toEqual({
      error: {
        message: 'The model provider did not answer in time.',
        type: 'timeout',
        param: null,
        code: 'upstream_timeout',
        source: 'upstream',
      },
    });
    const upstream = chunks.error(new UpstreamError('unavailable', 'raw body: secret'));
    expect(payload(upstream).error).toMatchObject({ code: 'upstream_error' });
    expect(upstream).not.toContain('secret');
    const unknown = chunks.error(new Error('database password is hunter2'));
    expect(payload(unknown).error).toMatchObject({ code: 'internal_error', source: 'gateway' });
    expect(unknown).not.toContain('hunter2');
  });
});
