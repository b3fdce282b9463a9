import { parseGatewayConfig } from '../config/gateway-config.loader';
import { GatewayConfigService } from '../config/gateway-config.service';
import { ConfigService } from '@nestjs/config';
import { loadAppConfig } from '../config/app-config';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter';
import { OpenAiCompatibleAdapter } from '../providers/openai/openai.adapter';
import { ProviderRegistry } from '../providers/provider-registry.service';
import { UpstreamHttpClient } from '../providers/upstream-http.client';
import { UpstreamError, upstreamErrorFromStatus } from '../common/errors/upstream.error';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter, isRetryable } from './deployment-router.service';
import { weightedOrder } from './weighted-order';
import { manualClientConnection } from '../common/http/client-connection.fixture';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';

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
    const health = new DeploymentHealthService();
    return { health, router: new DeploymentRouter(config, new ProviderRegistry([]), health) };
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
    const router = new DeploymentRouter(priced, registry, new DeploymentHealthService());
    const list = priced.deploymentsFor('m')!;

    const candidates = router.pricedCandidatesFor(list);

    expect(candidates.map((c) => c.maxTokens)).toEqual([2048, undefined]);
    expect(candidates.map((c) => c.price)).toEqual(list.map((d) => d.price));
    expect(candidates[0].price).not.toBeNull();
    // Worked out once per deployment list of the loaded config, not per request.
    expect(router.pricedCandidatesFor(list)).toBe(candidates);
  });

  // A backoff of 5-10 s between attempts: a test would time out if it were waited out.
  const slowBackoffRouter = () =>
    new DeploymentRouter(
      config,
      new ProviderRegistry([{ provider: 'mock' } as unknown as ProviderAdapter]),
      new DeploymentHealthService(),
      new ConfigService({ ROUTER_BACKOFF_BASE_MS: 10_000, ROUTER_BACKOFF_MAX_MS: 10_000 }),
    );

  it('ends the backoff between two attempts as soon as the client leaves, listening no longer', async () => {
    const router = slowBackoffRouter();
    const client = manualClientConnection();
    let calls = 0;
    const routed = router.withFailover(deployments, client, async () => {
      calls++;
      throw new UpstreamError('unavailable', 'connection refused');
    });
    routed.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(1);
    expect(client.listening).toBe(1);
    const reason = client.leave();
    await expect(routed).rejects.toBe(reason);
    expect(calls).toBe(1);
    expect(client.listening).toBe(0);
  });

  it('does not wait out a backoff for a client already gone', async () => {
    const router = slowBackoffRouter();
    const client = manualClientConnection();
    let calls = 0;
    const routed = router.withFailover(deployments, client, async () => {
      calls++;
      // The client leaves while the first attempt runs; the attempt fails as an aborted one would.
      const reason = client.leave();
      throw reason;
    });
    await expect(routed).rejects.toBe(client.lostReason);
    expect(calls).toBe(1);
  });

  it('retries connection failures, timeouts, 429, 5xx and a refused provider key, never another 4xx', () => {
    expect(isRetryable(new UpstreamError('unavailable', 'ECONNREFUSED'))).toBe(true);
    expect(isRetryable(new UpstreamError('timeout', 'first token'))).toBe(true);
    for (const status of [429, 500, 502, 503, 504, 401, 403, 408])
      expect(isRetryable(upstreamErrorFromStatus(status, ''))).toBe(true);
    for (const status of [400, 404, 409, 413, 422])
      expect(isRetryable(upstreamErrorFromStatus(status, ''))).toBe(false);
    expect(isRetryable(new Error('a bug'))).toBe(false);
  });

  it('backs off exponentially with jitter, and waits out a short Retry-After', () => {
    const { router } = setup(); // base 25 ms, max 1000 ms, Retry-After up to 2000 ms
    expect(router.delayBeforeAttempt(1, undefined, () => 0)).toBe(12.5);
    expect(router.delayBeforeAttempt(1, undefined, () => 1)).toBe(25);
    expect(router.delayBeforeAttempt(3, undefined, () => 1)).toBe(100);
    expect(router.delayBeforeAttempt(10, undefined, () => 1)).toBe(1_000);
    const rateLimited = (seconds: string) => upstreamErrorFromStatus(429, '', seconds);
    expect(router.delayBeforeAttempt(1, rateLimited('2'), () => 0)).toBe(2_000);
    expect(router.delayBeforeAttempt(1, rateLimited('30'), () => 0)).toBe(12.5);
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
