import { PDFDocument } from "pdf-lib";
import type { SigningFieldRect } from "@clinsign/contracts";
import { AppError } from "../errors";

export interface PageSize {
  width: number;
  height: number;
}

export interface PdfInfo {
  pageCount: number;
  pageSizes: PageSize[];
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Checks that `bytes` are a PDF we can stamp and seal later, and reads its page sizes. Encrypted
 * PDFs are refused: the service could not add the signature and audit page to them.
 */
export async function inspectPdf(bytes: Buffer, field: string): Promise<PdfInfo> {
  const head = bytes.subarray(0, 1024).toString("latin1");
  if (!head.includes("%PDF-")) {
    throw new AppError("invalid_request", "the file is not a PDF (no %PDF- header)", { field });
  }
  let pages;
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    pages = doc.getPages().map((page) => page.getSize());
  } catch (error) {
    const encrypted = error instanceof Error && /encrypt/i.test(error.message);
    throw new AppError(
      "invalid_request",
      encrypted ? "the PDF is encrypted; register an unencrypted PDF" : "the PDF could not be read (damaged or unsupported)",
      { field },
    );
  }
  if (pages.length === 0) throw new AppError("invalid_request", "the PDF has no pages", { field });
  return {
    pageCount: pages.length,
    pageSizes: pages.map(({ width, height }) => ({ width: round(width), height: round(height) })),
  };
}

/** Every field must lie on an existing page and inside it (top-left origin, PDF points). */
export function checkFieldsFit(fields: SigningFieldRect[], info: PdfInfo, field: string): void {
  fields.forEach((rect, index) => {
    const where = fields.length > 1 ? `field ${index + 1}: ` : "";
    if (rect.page > info.pageCount) {
      throw new AppError("invalid_request", `${where}page ${rect.page} does not exist; the PDF has ${info.pageCount} page(s)`, { field });
    }
    const size = info.pageSizes[rect.page - 1]!;
    if (rect.x + rect.width > size.width + 0.01 || rect.y + rect.height > size.height + 0.01) {
      throw new AppError(
        "invalid_request",
        `${where}the rectangle (x ${rect.x}, y ${rect.y}, ${rect.width} × ${rect.height}) does not fit page ${rect.page} (${size.width} × ${size.height} points, origin top-left)`,
        { field },
      );
    }
  });
}
