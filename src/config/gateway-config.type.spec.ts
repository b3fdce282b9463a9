import { parseGatewayConfig } from './gateway-config.loader';

// `type` of a deployment (docs/embeddings.md): chat (default) or embedding, one per public model.
const parse = (models: Record<string, unknown[]>) => parseGatewayConfig({ models }, {});
const openai = { provider: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'k', model: 'm' };

describe('deployment type', () => {
  it('is chat by default and embedding when set', () => {
    const config = parse({
      chat: [{ provider: 'mock' }],
      embed: [{ ...openai, type: 'embedding' }],
    });
    expect(config.models.get('chat')![0].type).toBe('chat');
    expect(config.models.get('embed')![0].type).toBe('embedding');
  });

  it('must be shared by all deployments of a model, named in the error', () => {
    expect(() =>
      parse({ mixed: [{ provider: 'mock' }, { provider: 'mock', type: 'embedding' }] }),
    ).toThrow(/models\.mixed: all deployments of a model must share one `type`/);
  });

  it('refuses an embedding deployment on anthropic', () => {
    expect(() => parse({ e: [{ ...openai, provider: 'anthropic', type: 'embedding' }] })).toThrow(
      /models\.e\[0\]: provider anthropic has no embeddings API/,
    );
  });

  it('refuses an unknown type', () => {
    expect(() => parse({ e: [{ provider: 'mock', type: 'rerank' }] })).toThrow(/type/);
  });

  it('needs only price.input for an embedding deployment, and charges no output', () => {
    const [deployment] = parse({
      e: [{ provider: 'mock', type: 'embedding', price: { input: '0.02' } }],
    }).models.get('e')!;
    expect(deployment.price).toMatchObject({ input: 20_000n, output: 0n });
  });

  it('still needs price.output for a chat deployment', () => {
    expect(() => parse({ c: [{ provider: 'mock', price: { input: '1' } }] })).toThrow(
      /models\.c\[0\]\.price\.output: required for a chat deployment/,
    );
  });
});
