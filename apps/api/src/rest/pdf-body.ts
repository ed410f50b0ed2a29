import type { IncomingMessage } from "node:http";
import { AppError } from "../core/errors";
import { readBody } from "../wire/io";
import { openMultipart, type MultipartBody } from "./multipart";

const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `the file exceeds ${limit / 1024 / 1024} MB`, { field: "file", limitBytes: limit });

/** A multipart file part up to `limit` bytes (the multipart body is aborted on failure). */
async function readCapped(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    // Nothing beyond the cap is kept: the rest of the body is never read.
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * One PDF, sent either as the raw body (`Content-Type: application/pdf`, for systems) or as the
 * first file part of a `multipart/form-data` body (for HTML forms). At most `limit` bytes are
 * read: a declared larger body is refused before its first byte, a longer one as soon as it
 * passes the cap.
 */
export async function readPdfBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ bytes: Buffer; multipart?: MultipartBody }> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "multipart/form-data") {
    if (Number(req.headers["content-length"] ?? 0) > limit + 64 * 1024) throw tooLarge(limit);
    const multipart = await openMultipart(req);
    for await (const part of multipart.files) return { bytes: await readCapped(part.stream, limit), multipart };
    throw new AppError("invalid_request", "send the PDF as a file part", { field: "file" });
  }
  if (type === "application/pdf" || type === "application/octet-stream") {
    return { bytes: await readBody(req, limit, () => tooLarge(limit)) };
  }
  throw new AppError("unsupported_media_type", "send the PDF as application/pdf or as multipart/form-data");
}
