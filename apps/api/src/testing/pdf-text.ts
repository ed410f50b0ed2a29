import { inflateSync } from "node:zlib";
import { PDFArray, PDFDocument, PDFName, PDFRawStream, type PDFObject } from "pdf-lib";

/**
 * The text a PDF written with pdf-lib's standard fonts shows: its content streams inflated and
 * the hex strings of their text operators decoded (WinAnsi, one byte a glyph). Enough to check
 * the labels and values of a PDF the service generated, without a system tool.
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes);
  const lines: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.get(PDFName.of("Contents"));
    const refs: PDFObject[] = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
    for (const ref of refs) {
      const stream = doc.context.lookup(ref);
      if (!(stream instanceof PDFRawStream)) continue;
      const filter = stream.dict.get(PDFName.of("Filter"));
      const raw = Buffer.from(stream.contents);
      const decoded = filter === PDFName.of("FlateDecode") ? inflateSync(raw) : raw;
      for (const match of decoded.toString("latin1").matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g))
        lines.push(Buffer.from(match[1]!, "hex").toString("latin1"));
    }
  }
  return lines.join("\n");
}
