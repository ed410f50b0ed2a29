/**
 * CSV as spreadsheets open it safely: RFC 4180 quoting, CRLF line ends, a UTF-8 byte order mark
 * (so Excel reads umlauts), and no formula injection (OWASP "CSV injection"):
 * - a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`,
 *   so it is shown as text, never evaluated;
 * - a cell that contains either list separator, `,` or `;`, is quoted, whichever separator the
 *   file uses: Excel splits a file by the list separator of the reader's locale (`;` in German
 *   Excel, `,` in English), so an unquoted `x;=1+1` in a comma file becomes a formula cell in
 *   German Excel. Quoted, the cells a reader sees are exactly the cells guarded here.
 * A phone number in international format (`+49 170 1234567`: a plus, digits and spaces) is left
 * as it is: it can neither reference a cell nor call a function, and a `'` in front of every
 * number would only be noise.
 */

export const CSV_BOM = "\uFEFF";
const FORMULA_START = /^[=+\-@\t\r]/;
const PHONE_NUMBER = /^\+\d(?: ?\d){5,16}$/;
const NEEDS_QUOTES = /[",;\r\n]/;

/** `,` for English spreadsheets, `;` where the decimal mark is a comma (German Excel). */
export type CsvSeparator = "," | ";";

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  // Numbers are data, not text a spreadsheet could read as a formula (-5 stays -5).
  if (typeof value === "string" && FORMULA_START.test(text) && !PHONE_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(
  cells: ReadonlyArray<string | number | boolean | null | undefined>,
  separator: CsvSeparator = ",",
): string {
  return `${cells.map(csvCell).join(separator)}\r\n`;
}
