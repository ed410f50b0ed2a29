import { describe, expect, it } from "vitest";
import { csvCell, csvRow } from "./csv";

describe("csv", () => {
  it("escapes cells a spreadsheet would run as a formula", () => {
    for (const text of ["=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]) expect(csvCell(text).replace(/^"/, "")).toMatch(/^'/);
    expect(csvCell("=cmd")).toBe("'=cmd");
    expect(csvCell("harmless = text")).toBe("harmless = text");
    // A number is data: -5 stays a negative number.
    expect(csvCell(-5)).toBe("-5");
  });

  it("quotes separators, quotes and line breaks, and ends rows with CRLF", () => {
    expect(csvRow(["a,b", 'say "hi"', "two\nlines", null, true])).toBe('"a,b","say ""hi""","two\nlines",,true\r\n');
    expect(csvCell("=a,b")).toBe(`"'=a,b"`);
  });
});
