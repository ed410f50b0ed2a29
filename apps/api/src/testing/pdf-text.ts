import { polyfillForPdfJs } from "../core/documents/page-render";

/**
 * The text a PDF shows, line by line, read with pdf.js (runs of spaces come out as one): the standard
 * fonts of Latin-1 texts as well as the embedded Noto subsets of the other patient languages
 * (their ToUnicode maps). Enough to check the labels and values of a PDF the service generated,
 * without a system tool.
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  polyfillForPdfJs();
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const task = pdfjs.getDocument({ data: bytes.slice(), disableFontFace: true, verbosity: 0 });
  const doc = await task.promise;
  try {
    let text = "";
    for (let number = 1; number <= doc.numPages; number++) {
      const content = await (await doc.getPage(number)).getTextContent();
      for (const item of content.items) if ("str" in item) text += item.str + (item.hasEOL ? "\n" : "");
      text += "\n";
    }
    return text;
  } finally {
    await task.destroy();
  }
}
