import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FileStorage } from "../core/files/storage";
import { sendJson } from "../wire/io";
import { sendStoredFile, type StoredFileDownload } from "./stored-file";

/**
 * A response other than "the route's status with a JSON body": another status (A9's 409 body
 * is not an error envelope), or raw bytes (signed PDF downloads, the console's PDFs, logos).
 * Without `contentType` the body is sent as JSON.
 */
export class RestReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType?: string,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * A 200 whose body is generated while it is sent (the console's CSV and JSON exports, the patient
 * access export's ZIP), page by page so memory stays flat; `headers` carry its type and
 * Content-Disposition.
 */
export class StreamReply {
  constructor(
    readonly headers: Record<string, string>,
    readonly body: AsyncGenerator<string | Uint8Array>,
  ) {}
}

/** A stored file, streamed from storage (byte ranges) or redirected to a presigned URL (rest/stored-file.ts). */
export class StoredFileReply {
  constructor(
    readonly storage: FileStorage,
    readonly file: StoredFileDownload,
  ) {}
}

export type Reply = RestReply | StreamReply | StoredFileReply;

export async function sendReply(res: ServerResponse, reply: Reply, req?: IncomingMessage): Promise<void> {
  if (reply instanceof StreamReply) return stream(res, reply.headers, reply.body);
  if (reply instanceof StoredFileReply) {
    if (!req) throw new Error("a stored file reply needs its request");
    return sendStoredFile(reply.storage, req, res, reply.file);
  }
  if (!reply.contentType) return sendJson(res, reply.status, reply.body, reply.headers);
  const body = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(String(reply.body));
  res.writeHead(reply.status, { "content-type": reply.contentType, "content-length": body.length, ...reply.headers });
  // A HEAD request gets the headers only: Node drops the body of a HEAD response.
  res.end(body);
}

/**
 * Until the response can take more, or the client went away. The listener that did not fire is
 * removed: a long export waits thousands of times, and leftovers would pile up on the response.
 */
async function drainedOrClosed(res: ServerResponse): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([
      once(res, "drain", { signal: settled.signal }),
      once(res, "close", { signal: settled.signal }),
    ]);
  } finally {
    settled.abort();
  }
}

/**
 * Writes a generated body with backpressure. The first chunk is awaited before the status line,
 * so a refusal (403) or bad filter (400) still becomes a proper error answer; a failure after
 * that can only cut the download short, which the client sees as an incomplete transfer.
 */
async function stream(res: ServerResponse, headers: Record<string, string>, body: AsyncGenerator<string | Uint8Array>) {
  const first = await body.next();
  res.writeHead(200, headers);
  if (!first.done) res.write(first.value);
  let closed = false;
  res.once("close", () => (closed = true));
  try {
    for await (const chunk of body) {
      if (closed) break;
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    await body.return(undefined);
  }
}
