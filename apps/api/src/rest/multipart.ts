import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import busboy from "busboy";
import { AppError } from "../core/errors";
import {
  MAX_FILES_PER_UPLOAD,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_REQUEST_BYTES,
  type IncomingFilePart,
} from "../core/uploads/uploads";

/** A multipart/form-data body being read: the text fields sent before the first file, then the files one by one. */
export interface MultipartBody {
  /** Text fields that preceded the first file part (credentials, templateIdentifier, fieldKey). */
  fields: Record<string, string>;
  /**
   * The file parts in order. Each part's stream must be consumed (or the iteration ended) before
   * the next is parsed: the request is read only as fast as the files are stored.
   */
  files: AsyncIterable<IncomingFilePart>;
  /** True once the whole body has been read. */
  readonly finished: boolean;
  /** Stops reading; the caller answers with `Connection: close` so the rest is never read. */
  abort(): void;
}

const tooLarge = () =>
  new AppError("payload_too_large", `the upload exceeds ${MAX_UPLOAD_REQUEST_BYTES / 1024 / 1024} MB in total`);
const malformed = () => new AppError("invalid_request", "malformed multipart body", { field: "body" });

/** The file parts parsed and not yet taken, the body's first failure, whether it ended, and the reader waiting for more. */
interface PartQueue {
  parts: IncomingFilePart[];
  failure: AppError | undefined;
  finished: boolean;
  wake: (() => void) | undefined;
}

/** Wakes the reader waiting for the next part, if any. */
function wakeReader(queue: PartQueue): void {
  const resume = queue.wake;
  queue.wake = undefined;
  resume?.();
}

/** The file parts in order, each once the previous one was taken; the body's failure is thrown to the reader. */
async function* takeParts(queue: PartQueue): AsyncGenerator<IncomingFilePart> {
  while (true) {
    if (queue.failure) throw queue.failure;
    const part = queue.parts.shift();
    if (part) {
      yield part;
      continue;
    }
    if (queue.finished) return;
    await new Promise<void>((resolve) => (queue.wake = resolve));
  }
}

/** The parser of this request's body, or why it is refused: media type, declared length, malformed headers. */
function parserFor(req: IncomingMessage): busboy.Busboy | AppError {
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    return new AppError("unsupported_media_type", "send the files as multipart/form-data");
  }
  if (Number(req.headers["content-length"] ?? 0) > MAX_UPLOAD_REQUEST_BYTES) return tooLarge();
  try {
    // One byte over the hard cap lets the consumer see that a part is too large.
    return busboy({
      headers: req.headers,
      // Browsers and fetch send a file name's UTF-8 bytes as they are (RFC 7578), not Latin-1.
      defParamCharset: "utf8",
      limits: { fileSize: MAX_UPLOAD_BYTES + 1, files: MAX_FILES_PER_UPLOAD + 1, fields: 20, fieldSize: 10_000 },
    });
  } catch {
    return malformed();
  }
}

/**
 * Starts reading a multipart body and resolves as soon as the first file part begins (or the body
 * ends), so the caller can authenticate and look up the upload's limits before a single file byte
 * is buffered. Nothing here holds more than the parser's small buffers: files are streamed to
 * whoever iterates `files`. The whole request is capped at MAX_UPLOAD_REQUEST_BYTES (413).
 */
export function openMultipart(req: IncomingMessage): Promise<MultipartBody> {
  const parser = parserFor(req);
  if (parser instanceof AppError) return Promise.reject(parser);
  const fields: Record<string, string> = {};
  const queue: PartQueue = { parts: [], failure: undefined, finished: false, wake: undefined };
  // Settled once: by the first file part or the body's end, or by a failure before either.
  let opened!: (body: MultipartBody) => void;
  let refused!: (error: AppError) => void;
  const opening = new Promise<MultipartBody>((resolve, reject) => {
    opened = resolve;
    refused = reject;
  });
  const fail = (error: AppError) => {
    queue.failure ??= error;
    for (const part of queue.parts) part.stream.destroy(queue.failure);
    refused(queue.failure);
    wakeReader(queue);
  };

  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_UPLOAD_REQUEST_BYTES) {
      abort();
      fail(tooLarge());
    }
  };
  const abort = () => {
    req.off("data", count);
    req.unpipe(parser);
    // The rest is neither parsed nor kept; the caller closes the connection after answering.
    req.resume();
  };

  const body: MultipartBody = {
    fields,
    files: takeParts(queue),
    get finished() {
      return queue.finished;
    },
    abort,
  };

  parser.on("field", (name, value) => {
    if (!(name in fields)) fields[name] = value;
  });
  parser.on("file", (_name, stream: Readable, info) => {
    // busboy ends a part cut short ("Unexpected end of form") by destroying its stream with an
    // error, which would be uncaught once nobody reads the part any more: a malformed body.
    stream.on("error", () => fail(malformed()));
    queue.parts.push({ name: info.filename ?? "file", type: info.mimeType, stream });
    opened(body);
    wakeReader(queue);
  });
  parser.on("error", () => fail(malformed()));
  parser.on("close", () => {
    queue.finished = true;
    opened(body);
    wakeReader(queue);
  });
  req.on("data", count);
  req.pipe(parser);
  return opening;
}
