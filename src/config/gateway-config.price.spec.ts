import { parseGatewayConfig } from './gateway-config.loader';

// `price` on a deployment (docs/spend.md): decimal strings of USD per million tokens, strict.
const withPrice = (price: unknown) => ({ models: { m: [{ provider: 'mock', price }] } });

describe('deployment price', () => {
  it('reads decimal strings into exact per-token prices with fallbacks and a version', () => {
    const [deployment] = parseGatewayConfig(
      withPrice({ input: '0.15', cached_input: '0.075', output: '0.60' }),
      {},
    ).models.get('m')!;
    expect(deployment.price).toMatchObject({
      input: 150_000n,
      cachedInput: 75_000n,
      cacheWrite: 150_000n,
      output: 600_000n,
      reasoning: 600_000n,
    });
    expect(deployment.price?.version).toMatch(/^[0-9a-f]{12}$/);
  });

  it('no price: cost unknown', () => {
    expect(
      parseGatewayConfig({ models: { m: [{ provider: 'mock' }] } }, {}).models.get('m')![0].price,
    ).toBeNull();
  });

  it.each([
    [{ input: 0.15, output: '1' }, 'm[0].price.input: input must be a decimal string'],
    [{ input: '-1', output: '1' }, 'm[0].price.input'],
    [{ input: '1e-3', output: '1' }, 'm[0].price.input'],
    [{ input: '0.0000001', output: '1' }, 'at most 6 decimal places'],
    [{ input: '1' }, 'm[0].price.output'],
    [{ input: '1', output: '1', cache_read: '1' }, 'm[0].price.cache_read: unknown field'],
    ['0.15', 'm[0].price'],
  ])('refuses price %j', (price, message) => {
    expect(() => parseGatewayConfig(withPrice(price), {})).toThrow(message);
  });
});
