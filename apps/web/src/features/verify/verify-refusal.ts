/** Why the API refused to check a file: the key of its text in the `verify.errors` dictionary. */
export type VerifyRefusal = "tooLarge" | "rateLimited" | "notPdf" | "unreadable" | "failed";

/** The error body of POST /api/verify, as far as the page reads it. */
export interface VerifyErrorBody {
  error?: { code?: string; details?: { reason?: string } };
}

/** The refusal an error answer of POST /api/verify stands for: its status first, then its body. */
export function verifyRefusal(status: number, body: VerifyErrorBody | null): VerifyRefusal {
  const reason = body?.error?.details?.reason;
  if (status === 413) return "tooLarge";
  if (status === 429) return "rateLimited";
  if (reason === "not_pdf") return "notPdf";
  if (reason === "pdf_limits") return "unreadable";
  return body?.error?.code === "unsupported_media_type" ? "notPdf" : "failed";
}
