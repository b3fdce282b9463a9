import { loadAppConfig } from '../config/app-config';
import { DeploymentHealthService } from './deployment-health.service';

describe('DeploymentHealthService', () => {
  // The defaults: threshold 3, cool-down 30 s.
  const health = () => new DeploymentHealthService(loadAppConfig({}));

  it('cools a deployment down after 3 consecutive failures; a success in between resets the count', () => {
    const h = health();
    h.recordFailure('a', 0);
    h.recordFailure('a', 0);
    h.recordSuccess('a');
    h.recordFailure('a', 0);
    h.recordFailure('a', 0);
    expect(h.isAvailable('a', 0)).toBe(true);
    h.recordFailure('a', 1_000);
    expect(h.isAvailable('a', 1_000)).toBe(false);
    expect(h.isAvailable('a', 30_999)).toBe(false);
    expect(h.snapshot(2_000)).toEqual([
      { name: 'a', status: 'cooling_down', consecutiveFailures: 3, coolingUntil: 31_000 },
    ]);
  });

  it('lets exactly one probe through after the cool-down; its failure starts a new one', () => {
    const h = health();
    for (let i = 0; i < 3; i++) h.recordFailure('a', 0);
    expect(h.tryAcquire('a', 30_000)).toBe(true);
    expect(h.tryAcquire('a', 30_000)).toBe(false);
    expect(h.snapshot(30_000)[0].status).toBe('probing');
    h.recordFailure('a', 30_500);
    expect(h.isAvailable('a', 60_499)).toBe(false);
    expect(h.tryAcquire('a', 60_500)).toBe(true);
    h.recordSuccess('a');
    expect(h.tryAcquire('a', 60_500)).toBe(true);
    expect(h.tryAcquire('a', 60_500)).toBe(true);
    expect(h.snapshot()).toEqual([]);
  });

  it('frees the probe slot when the probe ends without a verdict', () => {
    const h = health();
    for (let i = 0; i < 3; i++) h.recordFailure('a', 0);
    expect(h.tryAcquire('a', 30_000)).toBe(true);
    h.release('a');
    expect(h.tryAcquire('a', 30_000)).toBe(true);
  });

  it('rests a deployment for a long Retry-After without counting it as cool-down failures', () => {
    const h = health();
    h.coolFor('a', 60_000, 0);
    expect(h.isAvailable('a', 59_999)).toBe(false);
    expect(h.availableAt('a')).toBe(60_000);
  });
});
