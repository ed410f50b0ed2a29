import type { SigningFieldRect } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { PdfLimitError, runPdfTask } from "../pdf-worker/run";
import type { PageSize } from "./pdf-pages";

export type { PageSize } from "./pdf-pages";

export interface PdfInfo {
  pageCount: number;
  pageSizes: PageSize[];
}

const refusals = {
  encrypted: "the PDF is encrypted; register an unencrypted PDF",
  unreadable: "the PDF could not be read (damaged or unsupported)",
  no_pages: "the PDF has no pages",
} as const;

/**
 * Checks that `bytes` are a PDF we can stamp and seal later, and reads its page sizes. The parsing
 * runs in the PDF worker: a document that needs more memory or time than its limits allow (a
 * compression bomb, a pathological object graph) is refused like a damaged one, with 400.
 */
export async function inspectPdf(
  { services }: Pick<OrgContext, "services">,
  bytes: Buffer,
  field: string,
): Promise<PdfInfo> {
  const head = bytes.subarray(0, 1024).toString("latin1");
  if (!head.includes("%PDF-")) {
    throw new AppError("invalid_request", "the file is not a PDF (no %PDF- header)", { field });
  }
  let outcome;
  try {
    outcome = await runPdfTask(services.config.pdfWorker, "readPages", { bytes });
  } catch (error) {
    const limit = error instanceof PdfLimitError ? error.limit : "crash";
    services.log.warn(
      { limit, err: error instanceof Error ? error.message : String(error) },
      "a PDF was refused by the PDF worker",
    );
    const message =
      limit === "memory"
        ? "the PDF needs more memory to read than the service allows (damaged or hostile)"
        : limit === "time"
          ? "the PDF takes longer to read than the service allows (damaged or hostile)"
          : refusals.unreadable;
    throw new AppError("invalid_request", message, { field });
  }
  if (!outcome.ok) throw new AppError("invalid_request", refusals[outcome.reason], { field });
  return { pageCount: outcome.pageSizes.length, pageSizes: outcome.pageSizes };
}

/** Every field must lie on an existing page and inside it (top-left origin, PDF points). */
export function checkFieldsFit(fields: SigningFieldRect[], info: PdfInfo, field: string): void {
  fields.forEach((rect, index) => {
    const where = fields.length > 1 ? `field ${index + 1}: ` : "";
    if (rect.page > info.pageCount) {
      throw new AppError(
        "invalid_request",
        `${where}page ${rect.page} does not exist; the PDF has ${info.pageCount} page(s)`,
        { field },
      );
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
