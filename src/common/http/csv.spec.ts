import { toCsv } from './csv';

/** The cells of a one-column export of `values`, as written (header line dropped). */
function cells(values: Array<string | number | null>, numeric: string[] = []): string[] {
  return toCsv(
    ['value'],
    values.map((value) => [value]),
    numeric.length ? ['value'] : [],
  )
    .split('\r\n')
    .slice(1, -1);
}

describe('toCsv', () => {
  it('writes RFC 4180: CRLF lines, quoting only fields with a comma, quote or line break', () => {
    expect(
      toCsv(
        ['name', 'note'],
        [
          ['a,b', 'say "hi"'],
          ['plain', null],
        ],
      ),
    ).toBe('name,note\r\n"a,b","say ""hi"""\r\nplain,\r\n');
  });

  it('makes text a spreadsheet would run as a formula start with an apostrophe', () => {
    expect(
      cells(['=1+1', '+1', '-1+2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://x")']),
    ).toEqual([
      "'=1+1",
      "'+1",
      "'-1+2",
      "'@SUM(A1)",
      "'\tx",
      '"\'\rx"',
      '"\'=HYPERLINK(""http://x"")"',
    ]);
  });

  it('also when the formula character follows leading blanks, or is a full-width form', () => {
    expect(cells([' =1+1', '  @x', '\n=1', '\u00a0-1+1', '\u3000=1', '\uFF1D1+1', '＠x'])).toEqual([
      "' =1+1",
      "'  @x",
      '"\'\n=1"',
      "'\u00a0-1+1",
      "'\u3000=1",
      "'\uFF1D1+1",
      "'＠x",
    ]);
  });

  it('leaves other text alone', () => {
    expect(cells(['alpha-k3', 'a=b', 'key@team', ' plain', "'quoted", ''])).toEqual([
      'alpha-k3',
      'a=b',
      'key@team',
      ' plain',
      "'quoted",
      '',
    ]);
  });

  it('keeps numbers numbers: JavaScript numbers, and plain decimals in numeric columns', () => {
    expect(cells([-1.5, 0, 42])).toEqual(['-1.5', '0', '42']);
    expect(cells(['-1.5', '0.000123', '12'], ['value'])).toEqual(['-1.5', '0.000123', '12']);
    // A numeric column holding anything but a plain decimal is text, and defused like text.
    expect(cells(['-1+2', '=1', '-', '1e5'], ['value'])).toEqual(["'-1+2", "'=1", "'-", '1e5']);
    // The same decimal string in a text column (a key named "-1.5") is text.
    expect(cells(['-1.5'])).toEqual(["'-1.5"]);
  });
});
