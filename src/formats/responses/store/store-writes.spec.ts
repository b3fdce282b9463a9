import type { StoredResponseRow } from './response-store.repository';
import { StoreWrites } from './store-writes';

const row = (id: string) => ({ id }) as StoredResponseRow;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StoreWrites', () => {
  it('writes what arrives together in one statement, and what arrives meanwhile in the next', async () => {
    const statements: string[][] = [];
    let release!: () => void;
    const writes = new StoreWrites(async (rows) => {
      statements.push(rows.map((r) => r.id));
      if (statements.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [writes.write(row('a')), writes.write(row('b'))];
    await tick();
    const later = [writes.write(row('c')), writes.write(row('d'))];
    await tick();
    expect(statements).toEqual([['a', 'b']]);
    release();
    await Promise.all([...first, ...later]);
    expect(statements).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    await writes.write(row('e'));
    expect(statements.at(-1)).toEqual(['e']);
  });

  it('fails every write of a failed statement, and goes on with the next', async () => {
    let calls = 0;
    const writes = new StoreWrites(async () => {
      if (calls++ === 0) throw new Error('database down');
    });
    const failed = [writes.write(row('a')), writes.write(row('b'))];
    for (const write of failed) await expect(write).rejects.toThrow('database down');
    await expect(writes.write(row('c'))).resolves.toBeUndefined();
  });

  it('keeps a statement to 64 rows', async () => {
    const sizes: number[] = [];
    const writes = new StoreWrites(async (rows) => void sizes.push(rows.length));
    await Promise.all(Array.from({ length: 150 }, (_, i) => writes.write(row(String(i)))));
    expect(sizes).toEqual([64, 64, 22]);
  });
});
