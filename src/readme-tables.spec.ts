import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_ERRORS } from './common/errors/gateway-error-code';
import { COMPATIBILITY_MATRIX } from './completions/compatibility-matrix';

// The README publishes the error codes and the compatibility matrix; these tests keep the
// published tables equal to the tables the code runs on.

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

function tableRows(marker: string): string[][] {
  const start = readme.indexOf(`<!-- ${marker}:start -->`);
  const end = readme.indexOf(`<!-- ${marker}:end -->`);
  expect(start).toBeGreaterThan(-1);
  return readme
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Status') && !line.startsWith('| Field'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((cell) => cell.trim().replace(/^`|`$/g, '').replace(/\\\|/g, '|')),
    );
}

describe('README', () => {
  it('lists every error code with its status and type', () => {
    const rows = tableRows('error-codes').map(([status, code, type]) => ({ status: Number(status), code, type }));
    const expected = Object.entries(GATEWAY_ERRORS).map(([code, entry]) => ({ status: entry.status, code, type: entry.type }));
    expect(rows).toEqual(expected);
  });

  it('publishes the compatibility matrix the gateway applies', () => {
    const rows = tableRows('compatibility-matrix');
    const expected = Object.entries(COMPATIBILITY_MATRIX).map(([field, entry]) => [field, entry.handling, entry.note]);
    expect(rows).toEqual(expected);
  });
});
