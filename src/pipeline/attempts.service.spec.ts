import { UpstreamError, upstreamErrorFromStatus } from '../common/errors/upstream.error';
import { manualClientConnection } from '../common/http/client-connection.fixture';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';
import { AttemptsService, isRetryable, type AttemptPlan } from './attempts.service';
import { DeploymentRouter } from './deployment-router.service';
import { OutcomeService } from './outcome.service';
import { pipelineFixture } from './pipeline.fixture';
import { RequestDeadlines } from './request-deadlines';

const mock = { provider: 'mock' } as ProviderAdapter;

/** Three mock deployments, a, b and a standby, and the attempts of one request over them. */
async function attemptsOf(env: Record<string, unknown> = {}) {
  const fixture = await pipelineFixture({
    adapters: [mock],
    models: {
      m: [
        { provider: 'mock', name: 'a' },
        { provider: 'mock', name: 'b' },
        { provider: 'mock', name: 'standby', weight: 0 },
      ],
    },
    env,
  });
  const client = manualClientConnection();
  const headers: Record<string, string> = {};
  const run = fixture.get(OutcomeService).begin(
    { endpoint: 'chat_completions', model: 'm', messages: [], parameters: {} },
    {
      key: aVirtualKey(),
      requestId: 'req_1',
      client,
      setHeaders: (set) => Object.assign(headers, set),
    },
    false,
  );
  const deployments = fixture.get(DeploymentRouter).deploymentsFor('m', aVirtualKey());
  const deadlines = new RequestDeadlines(client, run.started, {
    requestTimeoutMs: Number(env.REQUEST_TIMEOUT_MS ?? 60_000),
  });
  const attempts = fixture.get(AttemptsService);
  const plan = (call: AttemptPlan<string>['call']): AttemptPlan<string> => ({
    bounds: 'complete answer',
    timeoutOf: () => 60_000,
    call,
  });
  const routed = (call: AttemptPlan<string>['call']) =>
    attempts.run(run, deployments, deadlines, plan(call)).finally(() => deadlines.dispose());
  return { attempts, run, client, headers, routed, deadlines };
}

// A backoff of 5-10 s between attempts: a test would time out if it were waited out.
const SLOW_BACKOFF = { ROUTER_BACKOFF_BASE_MS: 10_000, ROUTER_BACKOFF_MAX_MS: 10_000 };

describe('AttemptsService', () => {
  it('fails over to the next deployment on a provider failure, and says so in the headers', async () => {
    const { run, headers, routed } = await attemptsOf({ ROUTER_BACKOFF_BASE_MS: 1 });
    const tried: string[] = [];
    const { result, deployment } = await routed(async (_adapter, candidate) => {
      tried.push(candidate.name);
      if (tried.length === 1) throw new UpstreamError('unavailable', 'connection refused');
      return `answer from ${candidate.name}`;
    });

    expect(tried).toHaveLength(2);
    expect(tried.at(-1)).not.toBe('standby');
    expect(result).toBe(`answer from ${deployment.name}`);
    expect(run.attempts).toBe(2);
    expect(headers).toMatchObject({
      'x-gateway-deployment': deployment.name,
      'x-gateway-attempts': '2',
    });
  });

  it('answers a request error at once, trying no other deployment', async () => {
    const { run, headers, routed } = await attemptsOf();
    const refused = upstreamErrorFromStatus(400, 'bad');
    await expect(routed(() => Promise.reject(refused))).rejects.toBe(refused);
    expect(run.attempts).toBe(1);
    expect(headers['x-gateway-deployment']).toBeUndefined();
    expect(headers['x-gateway-attempts']).toBe('1');
  });

  it('makes at most ROUTER_MAX_ATTEMPTS attempts', async () => {
    const { run, routed } = await attemptsOf({ ROUTER_MAX_ATTEMPTS: 2, ROUTER_BACKOFF_BASE_MS: 1 });
    await expect(
      routed(() => Promise.reject(new UpstreamError('unavailable', 'down'))),
    ).rejects.toThrow('down');
    expect(run.attempts).toBe(2);
  });

  it('stops failing over once request_timeout_ms has passed, and answers its timeout', async () => {
    const { run, headers, routed, deadlines } = await attemptsOf({
      REQUEST_TIMEOUT_MS: 100,
      ROUTER_BACKOFF_BASE_MS: 1,
    });
    const tried: string[] = [];
    // Each attempt hangs until its signal is aborted, as an upstream that never answers.
    const attempt = routed(
      (_adapter, candidate, signal) =>
        new Promise((_resolve, reject) => {
          tried.push(candidate.name);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    );
    await expect(attempt).rejects.toThrow(/request_timeout_ms \(100 ms\)/);
    expect(tried).toHaveLength(1);
    expect(run.attempts).toBe(1);
    expect(deadlines.expired).toBeDefined();
    expect(headers['x-gateway-attempts']).toBe('1');
  });

  it('ends the backoff between two attempts as soon as the client leaves, listening no longer', async () => {
    const { client, routed } = await attemptsOf(SLOW_BACKOFF);
    let calls = 0;
    const attempt = routed(async () => {
      calls++;
      throw new UpstreamError('unavailable', 'connection refused');
    });
    attempt.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(1);
    const reason = client.leave();
    await expect(attempt).rejects.toBe(reason);
    expect(calls).toBe(1);
    expect(client.listening).toBe(0);
  });

  it('does not wait out a backoff for a client already gone', async () => {
    const { client, routed } = await attemptsOf(SLOW_BACKOFF);
    let calls = 0;
    const attempt = routed(async () => {
      calls++;
      // The client leaves while the first attempt runs; the attempt fails as an aborted one would.
      throw client.leave();
    });
    await expect(attempt).rejects.toBe(client.lostReason);
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

  it('backs off exponentially with jitter, and waits out a short Retry-After', async () => {
    const { attempts } = await attemptsOf(); // base 25 ms, max 1000 ms, Retry-After up to 2000 ms
    expect(attempts.delayBeforeAttempt(1, undefined, () => 0)).toBe(12.5);
    expect(attempts.delayBeforeAttempt(1, undefined, () => 1)).toBe(25);
    expect(attempts.delayBeforeAttempt(3, undefined, () => 1)).toBe(100);
    expect(attempts.delayBeforeAttempt(10, undefined, () => 1)).toBe(1_000);
    const rateLimited = (seconds: string) => upstreamErrorFromStatus(429, '', seconds);
    expect(attempts.delayBeforeAttempt(1, rateLimited('2'), () => 0)).toBe(2_000);
    expect(attempts.delayBeforeAttempt(1, rateLimited('30'), () => 0)).toBe(12.5);
  });
});
