/**
 * CSV as spreadsheets open it safely: RFC 4180 quoting, CRLF line ends, a UTF-8 byte order mark
 * (so Excel reads umlauts), and no formula injection: a cell that starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return is prefixed with `'`, so it is shown as text, never evaluated
 * (OWASP "CSV injection").
 */

export const CSV_BOM = "\uFEFF";
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  // Numbers are data, not text a spreadsheet could read as a formula (-5 stays -5).
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(cells: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
