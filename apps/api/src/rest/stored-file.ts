import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { AppError } from "../core/errors";
import { RangeNotSatisfiable, type ByteRange, type FileStorage } from "../core/files/storage";

export interface StoredFileDownload {
  key: string;
  /** The name the client saves the file as. */
  filename: string;
  contentType: string;
  /** false: always stream through the API, also with S3_DOWNLOADS=presigned (the console fetches its PDFs from its own origin). */
  presign?: boolean;
  /** Added to (or replacing) the download's headers, e.g. an `inline` Content-Disposition. */
  headers?: Record<string, string>;
}

type RequestedRange = ByteRange | { suffix: number };

/** One `bytes=` range (`a-b`, `a-`, `-n`); anything else (several ranges, other units) is ignored, so the whole file is sent. */
export function parseRangeHeader(header: string | undefined): RequestedRange | undefined {
  const match = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!match || (!match[1] && !match[2])) return undefined;
  if (!match[1]) return { suffix: Number(match[2]) };
  const start = Number(match[1]);
  const end = match[2] ? Number(match[2]) : undefined;
  if (end !== undefined && end < start) return undefined;
  return end === undefined ? { start } : { start, end };
}

/**
 * Sends a stored file: a redirect to a short-lived bucket URL when the storage gives one
 * (S3_DOWNLOADS=presigned), else the bytes streamed from storage, one byte range (206) when the
 * client asks for one. A missing file is the caller's `not_found`; a storage failure the 503 of
 * the storage, both thrown before the status line is written.
 */
export async function sendStoredFile(
  storage: FileStorage,
  req: IncomingMessage,
  res: ServerResponse,
  file: StoredFileDownload,
): Promise<void> {
  const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`;
  const redirect =
    file.presign === false
      ? null
      : await storage.downloadUrl(file.key, { filename: file.filename, contentType: file.contentType });
  if (redirect) {
    res.writeHead(302, { location: redirect, "cache-control": "private, no-store", ...file.headers });
    return void res.end();
  }
  let range = parseRangeHeader(req.headers.range);
  if (range && "suffix" in range) {
    const found = await storage.stat(file.key);
    if (!found) throw new AppError("not_found", "file not found");
    range = range.suffix === 0 ? { start: found.size } : { start: Math.max(0, found.size - range.suffix) };
  }
  let stream;
  try {
    stream = await storage.getStream(file.key, range);
  } catch (error) {
    if (!(error instanceof RangeNotSatisfiable)) throw error;
    res.writeHead(416, { "content-range": `bytes */${error.totalSize}`, "accept-ranges": "bytes" });
    return void res.end();
  }
  if (!stream) throw new AppError("not_found", "file not found");
  res.writeHead(stream.range ? 206 : 200, {
    "content-type": file.contentType,
    "content-length": stream.size,
    "content-disposition": disposition,
    "cache-control": "private, no-store",
    "accept-ranges": "bytes",
    ...(stream.range && { "content-range": `bytes ${stream.range.start}-${stream.range.end}/${stream.totalSize}` }),
    ...file.headers,
  });
  if (req.method === "HEAD") {
    stream.body.destroy();
    return void res.end();
  }
  // A failure now can only cut the transfer short; the client sees an incomplete download.
  await pipeline(stream.body, res).catch(() => res.destroy());
}
