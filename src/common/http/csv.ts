/**
 * RFC 4180 CSV: fields with a comma, quote or line break are quoted. A cell that a spreadsheet
 * would run as a formula (starting with = + - @ or a tab/CR) gets a leading apostrophe: key and
 * team names are admin input, and an export is meant to be opened in a spreadsheet.
 */
export function toCsv(header: string[], rows: Array<Array<string | number | null>>): string {
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

function cell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
