// Lines of shaped text (pdf-text.ts) written onto one PDF page as content-stream operators.
import { deflateSync } from "node:zlib";
import type { PDFDocument, PDFFont, PDFPage } from "pdf-lib";
import { pdfNumber, type ShapedLine } from "./pdf-text";

/** Red, green, blue from 0 to 1. */
export type Rgb = readonly [number, number, number];

/**
 * Single lines of text on one page, written directly as content-stream operators and added as one
 * stream. PDFPage.drawText builds an object per operator and operand, and adds a new entry to the
 * page's font resources on every call (about 50 for the audit page): together most of the audit
 * page's time. Here each font gets one resource entry per page, and each line is one BT … ET with
 * one Tj per run (the runs advance the text position by their glyphs' widths).
 */
export class PageText {
  private readonly operators: string[] = ["q"];
  private readonly fontKeys = new Map<PDFFont, string>();

  constructor(readonly page: PDFPage) {}

  private key(font: PDFFont): string {
    let key = this.fontKeys.get(font);
    if (!key) {
      key = this.page.node.newFontDictionary(font.name, font.ref).toString();
      this.fontKeys.set(font, key);
    }
    return key;
  }

  /** Draws a shaped line with its left edge at x. */
  write(line: ShapedLine, options: { x: number; y: number; size: number; color?: Rgb }): void {
    if (!line.runs.length) return;
    const [red, green, blue] = options.color ?? [0, 0, 0];
    const size = pdfNumber(options.size);
    const [first, ...rest] = line.runs.map((run) => [
      `${this.key(run.font)} ${size} Tf`,
      run.show ? run.show(options.size) : `<${run.hex}> Tj`,
    ]);
    this.operators.push(
      [
        `BT ${first![0]} ${pdfNumber(red)} ${pdfNumber(green)} ${pdfNumber(blue)} rg ${pdfNumber(options.x)} ${pdfNumber(options.y)} Td ${first![1]}`,
        ...rest.map(([font, show]) => `${font} ${show}`),
        "ET",
      ].join(" "),
    );
  }

  /** Adds what was written to the page, as one deflated content stream after its others. */
  finish(doc: PDFDocument): void {
    this.operators.push("Q");
    const contents = deflateSync(Buffer.from(this.operators.join("\n"), "latin1"));
    this.page.node.addContentStream(doc.context.register(doc.context.stream(contents, { Filter: "FlateDecode" })));
  }
}
