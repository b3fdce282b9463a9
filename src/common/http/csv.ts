export type CsvCell = string | number | null;

/**
 * A cell a spreadsheet would run as a formula (OWASP "CSV Injection"): one that starts with
 * = + - @, a tab or a carriage return, or whose first character after leading blanks is one of
 * = + - @ (spreadsheets differ in whether they trim leading blanks on import, LibreOffice's
 * "Trim spaces" option for one); defensively, the full-width forms of the four count too.
 */
const FORMULA_START = /^[\t\r]|^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A plain decimal number, negative ones included: a spreadsheet reads it as a number. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * RFC 4180 CSV, lines ending in CRLF: fields with a comma, quote or line break are quoted. Text
 * that a spreadsheet would run as a formula gets a leading apostrophe, which makes it text: key,
 * team and user names are typed by people, and an export is meant to be opened in a spreadsheet.
 * Numbers stay numbers: JavaScript numbers, and in the `numeric` columns (exact decimal strings
 * such as cost_usd) strings that are plain decimals; anything else there is treated as text.
 * web/dashboard/csv.js applies the same rule in the browser (its CSV export of the Usage page).
 */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<readonly CsvCell[]>,
  numeric: readonly string[] = [],
): string {
  const isNumeric = header.map((name) => numeric.includes(name));
  const lines = [header.map((name) => cell(name, false))];
  for (const row of rows) lines.push(row.map((value, i) => cell(value, isNumeric[i])));
  return lines.map((line) => line.join(',')).join('\r\n') + '\r\n';
}

function cell(value: CsvCell, numeric: boolean): string {
  if (value === null) return '';
  let text = String(value);
  const number = typeof value === 'number' || (numeric && DECIMAL.test(text));
  if (!number && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
