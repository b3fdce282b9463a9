// The CSV the page writes itself (the Usage export), by the rule of the gateway's server-side
// exports (src/common/http/csv.ts; the browser test checks the two agree): RFC 4180 with CRLF,
// and text a spreadsheet would run as a formula prefixed with an apostrophe. That is text
// starting with a tab or CR, or with = + - @ (or their full-width forms) after leading blanks.
// Numbers stay numbers: JavaScript numbers, and plain decimals in the `numeric` columns.
const FORMULA_START = /^[\t\r]|^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

function cell(value, numeric) {
  if (value === null || value === undefined) return '';
  let text = String(value);
  const number = typeof value === 'number' || (numeric && DECIMAL.test(text));
  if (!number && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header, rows, numeric = []) {
  const isNumeric = header.map((name) => numeric.includes(name));
  const lines = [header.map((name) => cell(name, false))];
  for (const row of rows) lines.push(row.map((value, i) => cell(value, isNumeric[i])));
  return `${lines.map((line) => line.join(',')).join('\r\n')}\r\n`;
}
