import { GatewayException } from '../../common/errors/gateway.exception';
import { parseEmbeddingsBody } from './embeddings.request';
import { float32Base64 } from './embeddings.response';

describe('parseEmbeddingsBody', () => {
  const paramOf = (body: unknown): string | null => {
    try {
      parseEmbeddingsBody(body);
    } catch (error) {
      return (error as GatewayException).param;
    }
    throw new Error('expected a refusal');
  };

  it('reads the four input shapes into a list of inputs', () => {
    expect(parseEmbeddingsBody({ model: 'm', input: 'a' }).inputs).toEqual(['a']);
    expect(parseEmbeddingsBody({ model: 'm', input: ['a', 'b'] }).inputs).toEqual(['a', 'b']);
    expect(parseEmbeddingsBody({ model: 'm', input: [1, 2] }).inputs).toEqual([[1, 2]]);
    expect(parseEmbeddingsBody({ model: 'm', input: [[1], [2, 3]] }).inputs).toEqual([[1], [2, 3]]);
  });

  it('defaults to float, ignores unknown fields, keeps dimensions and user', () => {
    expect(
      parseEmbeddingsBody({ model: 'm', input: 'a', dimensions: 8, user: 'u', extra: true }),
    ).toEqual({ model: 'm', inputs: ['a'], dimensions: 8, user: 'u', encodingFormat: 'float' });
  });

  it('names the field of every refusal', () => {
    expect(paramOf({ input: 'a' })).toBe('model');
    expect(paramOf({ model: 'm', input: [1.5] })).toBe('input');
    expect(paramOf({ model: 'm', input: ['a', 2] })).toBe('input[1]');
    expect(paramOf({ model: 'm', input: 'a', dimensions: 2.5 })).toBe('dimensions');
    expect(paramOf({ model: 'm', input: 'a', dimensions: 20_000 })).toBe('dimensions');
    expect(paramOf({ model: 'm', input: 'a', user: 3 })).toBe('user');
  });
});

describe('float32Base64', () => {
  it('is little-endian float32, as OpenAI encodes it', () => {
    expect(float32Base64([1, -2])).toBe(
      Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString('base64'),
    );
  });
});
