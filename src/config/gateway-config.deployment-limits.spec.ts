import { parseGatewayConfig } from './gateway-config.loader';

// The per-deployment limits (concurrency, queueing, first-token deadline; docs/providers-and-routing.md, "Upstream connections and limits").

const openai = { provider: 'openai', base_url: 'http://upstream/v1', api_key: 'k', model: 'm' };

describe('deployment limits in the gateway config', () => {
  it('has no concurrency limit by default, a 1 s queue, and the first-token deadline of timeout_ms', () => {
    const [deployment] = parseGatewayConfig(
      { models: { 'alpha-k3': [{ ...openai, timeout_ms: 7000 }] } },
      {},
    ).models.get('alpha-k3')!;
    expect(deployment).toMatchObject({
      timeoutMs: 7000,
      firstTokenTimeoutMs: 7000,
      maxConcurrency: null,
      maxQueueMs: 1000,
    });
  });

  it('reads max_concurrency, max_queue_ms and first_token_timeout_ms', () => {
    const document = {
      models: {
        'alpha-k3': [
          { ...openai, max_concurrency: 50, max_queue_ms: 0, first_token_timeout_ms: 2000 },
        ],
      },
    };
    const [deployment] = parseGatewayConfig(document, {}).models.get('alpha-k3')!;
    expect(deployment).toMatchObject({
      timeoutMs: 120_000,
      firstTokenTimeoutMs: 2000,
      maxConcurrency: 50,
      maxQueueMs: 0,
    });
  });

  it.each([
    [{ max_concurrency: 0 }, 'max_concurrency'],
    [{ max_concurrency: 2.5 }, 'max_concurrency'],
    [{ max_queue_ms: -1 }, 'max_queue_ms'],
    [{ first_token_timeout_ms: 5 }, 'first_token_timeout_ms'],
  ])('rejects %j', (fields, message) => {
    expect(() =>
      parseGatewayConfig({ models: { 'alpha-k3': [{ ...openai, ...fields }] } }, {}),
    ).toThrow(message);
  });
});
