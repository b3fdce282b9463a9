import { sanitizeBody, stripPrototypeKeys } from './body-shape';

describe('sanitizeBody', () => {
  it('names the first place over a limit as a path', () => {
    const limits = { maxDepth: 4, maxKeysPerObject: 2, maxItemsPerArray: 2 };
    expect(sanitizeBody({ a: 1, b: { c: [1, 2, 3] } }, limits)).toEqual({
      path: 'b.c',
      problem: 'has more than 2 items',
    });
    expect(sanitizeBody({ m: [{}, { x: 1, y: 2, z: 3 }] }, limits)).toEqual({
      path: 'm[1]',
      problem: 'has more than 2 keys',
    });
    expect(sanitizeBody({ a: [[[[]]]] }, limits)).toEqual({
      path: 'a[0][0][0]',
      problem: 'is nested more than 4 levels deep',
    });
    expect(sanitizeBody({ a: [[[1]]] }, limits)).toBeUndefined();
  });

  it('walks 200,000 levels without recursion and strips prototype keys at every level', () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let i = 0; i < 200_000; i++) {
      const child: Record<string, unknown> = {};
      node.next = child;
      node = child;
    }
    const leaf = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":1,"prototype":2,"kept":3}',
    );
    node.next = leaf;
    expect(() => stripPrototypeKeys(root)).not.toThrow();
    expect(Object.keys(leaf)).toEqual(['kept']);
  });
});
