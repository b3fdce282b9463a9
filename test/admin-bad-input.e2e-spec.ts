import { ADMIN_KEY, adminApi } from './support/admin';
import { chat } from './support/chat';
import { startTestApp, TestApp } from './support/test-app';

// The hostile admin inputs that answered 500 (issue #53), each now a 400 naming its field. The
// property test (admin-hostile-input.e2e-spec.ts) drives every route with such values at random.

describe('hostile values that gave 500s before', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY },
      // A priced model, so a key with a dollar budget holds dollars.
      models: {
        'alpha-k3': [{ provider: 'mock', model: 'm', price: { input: '1', output: '2' } }],
      },
    });
  });
  afterAll(() => gateway?.close());

  it.each([
    ['a NUL in a key name', 'post', '/keys', { name: 'a\u0000b' }, 'name'],
    ['a NUL in a team name', 'post', '/teams', { name: 'a\u0000b' }, 'name'],
    ['a NUL in a key id', 'get', '/keys/a%00b', undefined, 'id'],
    ['a NUL in a model filter', 'get', '/spend?model=a%00b', undefined, 'model'],
    ['a NUL in an audit filter', 'get', '/audit?target=a%00b', undefined, 'target'],
    ['year 0 in /admin/spend', 'get', '/spend?from=0000-01-01', undefined, 'from'],
    ['30 February in /admin/spend', 'get', '/spend?to=2026-02-30', undefined, 'to'],
    ['year 0 in /admin/audit', 'get', '/audit?from=0000-01-01', undefined, 'from'],
    [
      'an audit cursor beyond bigint',
      'get',
      '/audit?cursor=9999999999999999999',
      undefined,
      'cursor',
    ],
    ['a key id that is no uuid', 'get', '/usage?key_id=not-a-uuid', undefined, 'key_id'],
    [
      'an expiry in year 275760',
      'post',
      '/keys',
      { name: 'x', expires_at: '+275760-09-13T00:00:00Z' },
      'expires_at',
    ],
    ['a rename to null', 'patch', '/keys/some-key', { name: null }, 'name'],
  ])('%s: 400 naming the field', async (_case, method, path, body, param) => {
    const admin = adminApi(gateway.url);
    const response = await (method === 'get'
      ? admin.get(path)
      : admin[method as 'post'](path, body!));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('max_tokens 1e308 on a key with a dollar budget: 400 naming max_tokens, not an overflowed hold', async () => {
    const key = await gateway.createKey({ budgetUsd: '1.00', budgetPeriod: 'month' });
    for (const field of ['max_tokens', 'max_completion_tokens']) {
      const response = await chat(gateway, key, { [field]: 1e308 });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param: field });
    }
    expect((await chat(gateway, key, { max_tokens: 10 })).status).toBe(200);
  });
});
