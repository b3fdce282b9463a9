import { createHash } from 'node:crypto';
import { generateSecret, hashSecret } from './virtual-key-secret';

describe('hashSecret', () => {
  // Keys created before any change of the hashing code must still be found by their stored hash.
  it('is the hex SHA-256 of the secret’s UTF-8 bytes', () => {
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    for (const secret of [generateSecret(), 'gk-ünïcödé-ß-€', 'x'.repeat(256)])
      expect(hashSecret(secret)).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
  });
});
