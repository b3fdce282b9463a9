import { embeddedDefaultConfig, parseGatewayConfig } from './gateway-config.loader';

// A model's request_timeout_ms: all attempts of one request together (docs/providers-and-routing.md, "Timeouts").

const openai = { provider: 'openai', base_url: 'http://upstream/v1', api_key: 'k', model: 'm' };

describe('request_timeout_ms in the gateway config', () => {
  it('takes a model as its list of deployments or as an object with model-wide settings', () => {
    const config = parseGatewayConfig(
      {
        models: {
          listed: [openai],
          timed: { request_timeout_ms: 30_000, deployments: [openai, { ...openai, weight: 0 }] },
          untimed: { deployments: [openai] },
        },
      },
      {},
    );
    expect(config.models.get('timed')).toHaveLength(2);
    expect(config.models.get('timed')![1].name).toBe('timed/1');
    expect([...config.requestTimeouts]).toEqual([['timed', 30_000]]);
    expect(embeddedDefaultConfig().requestTimeouts.size).toBe(0);
  });

  it.each([
    [{ request_timeout_ms: 50, deployments: [openai] }, 'models.m.request_timeout_ms'],
    [{ request_timeout_ms: 5000 }, 'models.m: expected a non-empty list of deployments'],
    [{ deployments: [] }, 'models.m: expected a non-empty list of deployments'],
    [{ deployments: [openai], timeout: 5 }, 'models.m.timeout: unknown field'],
    [
      { deployments: [{ ...openai, timout_ms: 5 }] },
      'models.m.deployments[0].timout_ms: unknown field',
    ],
    [[{ ...openai, timout_ms: 5 }], 'models.m[0].timout_ms: unknown field'],
  ])('refuses %j, naming the field', (model, message) => {
    expect(() => parseGatewayConfig({ models: { m: model } }, {})).toThrow(message);
  });
});
