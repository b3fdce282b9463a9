import { changedFields, redact } from './audit-redaction';

describe('audit redaction', () => {
  it('drops credential fields at any depth and keeps the rest', () => {
    expect(
      redact({
        name: 'k',
        secret: 'gk-abc',
        secretHash: 'h',
        previous_secret_hash: 'h2',
        key_prefix: 'gk-abc',
        token_budget: 5,
        nested: [{ client_secret: 'x', id_token: 'y', access_token: 'z', ok: 1 }],
        at: new Date('2026-01-01T00:00:00Z'),
      }),
    ).toEqual({
      name: 'k',
      key_prefix: 'gk-abc',
      token_budget: 5,
      nested: [{ ok: 1 }],
      at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('keeps only the fields that changed, by value', () => {
    expect(
      changedFields(
        { name: 'a', budget_usd: '10', allowed_models: ['x'], secret: 's1' },
        { name: 'a', budget_usd: '25', allowed_models: ['x'], secret: 's2' },
      ),
    ).toEqual({ before: { budget_usd: '10' }, after: { budget_usd: '25' } });
    expect(changedFields({ a: [1] }, { a: [1] })).toBeNull();
    expect(changedFields({ a: null }, { a: 1, b: 2 })).toEqual({
      before: { a: null, b: null },
      after: { a: 1, b: 2 },
    });
  });
});
