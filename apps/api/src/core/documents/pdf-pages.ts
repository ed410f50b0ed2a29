/**
 * Reads a PDF's page sizes with pdf-lib. Runs only inside the PDF worker (core/pdf-worker), under
 * its memory and time limits: the bytes came from a customer's URL.
 */
import { PDFDocument } from "pdf-lib";

export interface PageSize {
  width: number;
  height: number;
}

export type PdfPagesOutcome =
  { ok: true; pageSizes: PageSize[] } | { ok: false; reason: "encrypted" | "unreadable" | "no_pages" };

const round = (n: number) => Math.round(n * 100) / 100;

/** Encrypted PDFs are refused: the service could not add the signature and audit page to them. */
export async function readPdfPages(bytes: Uint8Array): Promise<PdfPagesOutcome> {
  let pages;
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    pages = doc.getPages().map((page) => page.getSize());
  } catch (error) {
    return { ok: false, reason: error instanceof Error && /encrypt/i.test(error.message) ? "encrypted" : "unreadable" };
  }
  if (pages.length === 0) return { ok: false, reason: "no_pages" };
  return { ok: true, pageSizes: pages.map(({ width, height }) => ({ width: round(width), height: round(height) })) };
}
