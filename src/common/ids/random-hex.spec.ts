import { randomHex12 } from './random-hex';

describe('randomHex12', () => {
  it('gives 24 hex characters, never the same twice across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = randomHex12();
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2_000);
  });
});
