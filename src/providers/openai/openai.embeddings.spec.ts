import { UpstreamError } from '../../common/errors/upstream.error';
import { mapBatchEmbeddings } from '../gemini/gemini.embeddings';
import { mapEmbeddings } from './openai.embeddings';

describe('mapEmbeddings (OpenAI)', () => {
  const item = (index: number, embedding: unknown) => ({ object: 'embedding', index, embedding });

  it('orders the vectors by index and reads prompt_tokens', () => {
    const answer = {
      data: [item(1, [0.2]), item(0, [0.1])],
      usage: { prompt_tokens: 5, total_tokens: 5 },
    };
    expect(mapEmbeddings(answer, 2)).toEqual({
      vectors: [[0.1], [0.2]],
      usage: { promptTokens: 5, completionTokens: 0 },
    });
  });

  it.each([
    ['too few items', { data: [item(0, [1])], usage: { prompt_tokens: 1 } }],
    ['a repeated index', { data: [item(0, [1]), item(0, [2])], usage: { prompt_tokens: 1 } }],
    ['a base64 vector', { data: [item(0, 'AAAA'), item(1, [2])], usage: { prompt_tokens: 1 } }],
    ['no usage', { data: [item(0, [1]), item(1, [2])] }],
  ])('refuses %s as invalid_response', (_name, answer) => {
    expect(() => mapEmbeddings(answer, 2)).toThrow(UpstreamError);
  });
});

describe('mapBatchEmbeddings (Gemini)', () => {
  it('reads the values in request order and refuses a short answer', () => {
    expect(mapBatchEmbeddings({ embeddings: [{ values: [1] }, { values: [2] }] }, 2)).toEqual([
      [1],
      [2],
    ]);
    expect(() => mapBatchEmbeddings({ embeddings: [{ values: [1] }] }, 2)).toThrow(UpstreamError);
  });
});
