import { describe, expect, it } from "vitest";
import { csvCell, csvRow } from "./csv";

/** The cells as a spreadsheet reads a row (RFC 4180 quoting), split at `separator`. */
function readCells(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === separator && !quoted) {
      cells.push(cell);
      cell = "";
    } else {
      cell += c;
    }
  }
  cells.push(cell);
  return cells;
}

describe("csv", () => {
  it("escapes cells a spreadsheet would run as a formula", () => {
    for (const text of ["=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "+1+cmd", "+49 170 =1"])
      expect(csvCell(text).replace(/^"/, "")).toMatch(/^'/);
    expect(csvCell("=cmd")).toBe("'=cmd");
    expect(csvCell("harmless = text")).toBe("harmless = text");
    // A number is data: -5 stays a negative number.
    expect(csvCell(-5)).toBe("-5");
  });

  it("leaves phone numbers without a stray apostrophe", () => {
    expect(csvCell("+491701234567")).toBe("+491701234567");
    expect(csvCell("+49 170 1234567")).toBe("+49 170 1234567");
    expect(csvCell("0170 1234567")).toBe("0170 1234567");
  });

  it("quotes separators, quotes and line breaks, and ends rows with CRLF", () => {
    expect(csvRow(["a,b", 'say "hi"', "two\nlines", null, true])).toBe('"a,b","say ""hi""","two\nlines",,true\r\n');
    expect(csvCell("=a,b")).toBe(`"'=a,b"`);
    expect(csvRow(["a", "b;c"], ";")).toBe('a;"b;c"\r\n');
  });

  it("keeps every cell formula-safe whether the reader splits at , or ; (German Excel splits a comma file at ;)", () => {
    const hostile = ["x;=1+1", "x,=1+1", "a;@SUM(A1)", "n;+1+cmd|' /C calc'!A0", "k;-2+3", 'q";=1+1'];
    for (const separator of [",", ";"] as const) {
      const line = csvRow(["id", ...hostile], separator).replace(/\r\n$/, "");
      for (const reader of [",", ";"]) {
        for (const cell of readCells(line, reader))
          expect(cell, `${separator}-file read with ${reader}`).not.toMatch(/^[=+\-@\t\r]/);
      }
      // Read with its own separator, the cells are exactly what was written.
      expect(readCells(line, separator)).toEqual(["id", ...hostile]);
    }
  });
});
