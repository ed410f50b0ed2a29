import type { UploadDocumentMetadata, UploadDocumentOutput } from "@clinsign/contracts";

/** A refusal of the upload, with the API's message and the field it names. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * POST /staff/documents through the web app's same-origin /staff door: the metadata part first,
 * so the API checks it before reading the PDF.
 */
export async function uploadDocument(
  file: { bytes: Uint8Array; name: string },
  metadata: UploadDocumentMetadata,
): Promise<UploadDocumentOutput> {
  const body = new FormData();
  body.append("metadata", JSON.stringify(metadata));
  body.append("file", new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), file.name);
  const response = await fetch("/staff/documents", { method: "POST", body, credentials: "same-origin" });
  const answer = (await response.json().catch(() => null)) as
    (UploadDocumentOutput & { error?: { message?: string; details?: { field?: string } } }) | null;
  if (response.status !== 201 || !answer || answer.error) {
    throw new UploadError(
      answer?.error?.message ?? `HTTP ${response.status}`,
      response.status,
      answer?.error?.details?.field,
    );
  }
  return answer;
}
