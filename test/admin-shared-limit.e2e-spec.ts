import request from 'supertest';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { startTestApp, TestApp } from './support/test-app';

const ADMIN_KEY = 'admin-key-for-the-shared-limit-test';

describe('admin API limit with shared storage', () => {
  const namespace = testRedisNamespace();
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const env = {
      ADMIN_API_KEY: ADMIN_KEY,
      ADMIN_RATE_LIMIT: '4',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: namespace.prefix,
    };
    first = await startTestApp({ env });
    second = await startTestApp({ env });
  });

  afterAll(async () => {
    await first.close();
    await second.close();
    await namespace.cleanup();
  });

  it('counts one client across instances on one Redis', async () => {
    const list = (gateway: TestApp) =>
      request(gateway.url).get('/admin/keys').set('Authorization', `Bearer ${ADMIN_KEY}`);
    const statuses = [];
    for (const gateway of [first, second, first, second, first, second])
      statuses.push((await list(gateway)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
