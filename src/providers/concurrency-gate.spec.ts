import { ConcurrencyGate } from './concurrency-gate';
import { UpstreamError } from '../common/errors/upstream.error';

describe('ConcurrencyGate', () => {
  const never = new AbortController().signal;

  it('grants up to max slots at once and hands a released slot to the first in line', async () => {
    const gate = new ConcurrencyGate('d', 2, 1_000);
    const [a, b] = await Promise.all([gate.acquire(never), gate.acquire(never)]);
    const order: string[] = [];
    const third = gate.acquire(never).then((release) => (order.push('third'), release));
    const fourth = gate.acquire(never).then((release) => (order.push('fourth'), release));
    expect(gate.queued).toBe(2);
    a();
    a(); // a second release of the same slot is ignored
    await third;
    expect(order).toEqual(['third']);
    expect(gate.inFlight).toBe(2);
    b();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('refuses after maxWaitMs with an overloaded error carrying Retry-After', async () => {
    const gate = new ConcurrencyGate('d', 1, 50);
    await gate.acquire(never);
    const error = await gate.acquire(never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('overloaded');
    expect((error as UpstreamError).toGatewayException()).toMatchObject({
      status: 503,
      code: 'gateway_overloaded',
      headers: { 'retry-after': '1' },
    });
    expect(gate.queued).toBe(0);
  });

  it('leaves the line when the request is aborted, with the abort reason', async () => {
    const gate = new ConcurrencyGate('d', 1, 10_000);
    await gate.acquire(never);
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    expect(gate.queued).toBe(0);
  });
});
