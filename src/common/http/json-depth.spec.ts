import { findTooDeep } from './json-depth';

describe('findTooDeep', () => {
  const scan = (json: string, max = 3) => findTooDeep(Buffer.from(json), max);

  it('accepts nesting up to the limit, brackets inside strings not counted', () => {
    expect(scan('{"a":[{"b":1}]}')).toBeUndefined();
    expect(scan('{"a":"[[[[[{{{{","b":["\\\\\\"[[[["]}')).toBeUndefined();
  });

  it('names the place where the nesting goes too deep', () => {
    expect(scan('{"a":1,"b":[0,{"c":[[1]]}]}')).toEqual({
      path: 'b[1].c',
      problem: 'is nested more than 3 levels deep',
    });
    expect(scan('{"x":{"k\\u0065y":[[[]]]}}')).toEqual({
      path: 'x.key[0]',
      problem: 'is nested more than 3 levels deep',
    });
  });

  it('keeps nothing of an earlier body: its keys do not name the levels of the next one', () => {
    expect(scan('{"long key":{"other":{"third":[[]]}}}')?.path).toBe('long key.other.third');
    // Malformed, objects without keys: the parser rejects it, the path has no key to show.
    expect(scan('{{{{}}}}')?.path).toBe('');
    expect(scan('[[[[]]]]', 5)).toBeUndefined();
    expect(scan('[{"a":[{}]}]', 2)?.path).toBe('[0].a');
  });

  it('reads a 1 MiB body nested half a million levels in one linear pass', () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    expect(findTooDeep(Buffer.from(`{"m":${deep}}`))?.path).toBe(`m${'[0]'.repeat(63)}`);
  });
});
