import { parseGatewayConfig } from '../config/gateway-config.loader';
import { GatewayConfigService } from '../config/gateway-config.service';
import { loadAppConfig } from '../config/app-config';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter';
import { OpenAiCompatibleAdapter } from '../providers/openai/openai.adapter';
import { ProviderRegistry } from '../providers/provider-registry.service';
import { UpstreamHttpClient } from '../providers/upstream-http.client';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter } from './deployment-router.service';
import { weightedOrder } from './weighted-order';

describe('DeploymentRouter', () => {
  const config = new GatewayConfigService(
    parseGatewayConfig(
      {
        models: {
          m: [
            { provider: 'mock', name: 'a', weight: 2 },
            { provider: 'mock', name: 'standby', weight: 0 },
            { provider: 'mock', name: 'b' },
          ],
        },
      },
      {},
    ),
  );
  const setup = () => {
    const health = new DeploymentHealthService(loadAppConfig({}));
    return {
      health,
      router: new DeploymentRouter(config, new ProviderRegistry([]), health, loadAppConfig({})),
    };
  };
  const deployments = config.deploymentsFor('m')!;

  it("gives a dollar hold each deployment's price and the cap its adapter sends when a request has none", () => {
    const price = { input: '3', output: '15' };
    const upstream = { base_url: 'http://127.0.0.1:9', api_key: 'k', model: 'x' };
    const priced = new GatewayConfigService(
      parseGatewayConfig(
        {
          models: {
            m: [
              {
                provider: 'anthropic',
                name: 'claude',
                ...upstream,
                price,
                default_max_tokens: 2048,
              },
              { provider: 'openai', name: 'gpt', ...upstream, price },
            ],
          },
        },
        {},
      ),
    );
    const http = new UpstreamHttpClient(loadAppConfig({}));
    const registry = new ProviderRegistry([
      new AnthropicAdapter(http),
      new OpenAiCompatibleAdapter(http),
    ]);
    const router = new DeploymentRouter(
      priced,
      registry,
      new DeploymentHealthService(loadAppConfig({})),
      loadAppConfig({}),
    );
    const list = priced.deploymentsFor('m')!;

    const candidates = router.pricedCandidatesFor(list);

    expect(candidates.map((c) => c.maxTokens)).toEqual([2048, undefined]);
    expect(candidates.map((c) => c.price)).toEqual(list.map((d) => d.price));
    expect(candidates[0].price).not.toBeNull();
    // Worked out once per deployment list of the loaded config, not per request.
    expect(router.pricedCandidatesFor(list)).toBe(candidates);
  });

  it("gives a request its model's request_timeout_ms, else REQUEST_TIMEOUT_MS", () => {
    const timed = new GatewayConfigService(
      parseGatewayConfig(
        {
          models: {
            timed: { request_timeout_ms: 5_000, deployments: [{ provider: 'mock' }] },
            plain: [{ provider: 'mock' }],
          },
        },
        {},
      ),
    );
    const settings = loadAppConfig({ REQUEST_TIMEOUT_MS: '90000' });
    const router = new DeploymentRouter(
      timed,
      new ProviderRegistry([]),
      new DeploymentHealthService(settings),
      settings,
    );
    expect(router.requestTimeoutFor('timed')).toBe(5_000);
    expect(router.requestTimeoutFor('plain')).toBe(90_000);
    expect(loadAppConfig({}).REQUEST_TIMEOUT_MS).toBe(600_000);
  });

  it('plans the weighted deployments first and the standby last; cooling ones are left out', () => {
    const { router, health } = setup();
    for (let i = 0; i < 20; i++)
      expect(
        router
          .plan(deployments)
          .order.map((d) => d.name)
          .at(-1),
      ).toBe('standby');
    for (let i = 0; i < 3; i++) health.recordFailure('a');
    expect(router.plan(deployments).order.map((d) => d.name)).toEqual(['b', 'standby']);
  });

  it('fails open when every deployment cools down: the soonest back first', () => {
    const { router, health } = setup();
    health.coolFor('a', 5_000);
    health.coolFor('b', 1_000);
    health.coolFor('standby', 9_000);
    expect(router.plan(deployments)).toEqual({
      order: [deployments[2], deployments[0], deployments[1]],
      failOpen: true,
    });
  });
});

describe('weightedOrder', () => {
  it('puts an item first in proportion to its weight and leaves weight 0 out', () => {
    const firsts: Record<string, number> = { x: 0, y: 0 };
    for (let i = 0; i < 10_000; i++)
      firsts[weightedOrder(['x', 'y', 'z'], (v) => ({ x: 3, y: 1, z: 0 })[v]!)[0]]++;
    expect(firsts.x / 10_000).toBeCloseTo(0.75, 1);
    expect(weightedOrder(['x', 'z'], (v) => (v === 'z' ? 0 : 1))).toEqual(['x']);
  });
});
