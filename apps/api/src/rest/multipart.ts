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

/**
 * Starts reading a multipart body and resolves as soon as the first file part begins (or the body
 * ends), so the caller can authenticate and look up the upload's limits before a single file byte
 * is buffered. Nothing here holds more than the parser's small buffers: files are streamed to
 * whoever iterates `files`. The whole request is capped at MAX_UPLOAD_REQUEST_BYTES (413).
 */
export function openMultipart(req: IncomingMessage): Promise<MultipartBody> {
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    return Promise.reject(new AppError("unsupported_media_type", "send the files as multipart/form-data"));
  }
  if (Number(req.headers["content-length"] ?? 0) > MAX_UPLOAD_REQUEST_BYTES) return Promise.reject(tooLarge());
  let parser: busboy.Busboy;
  try {
    // One byte over the hard cap lets the consumer see that a part is too large.
    parser = busboy({
      headers: req.headers,
      // Browsers and fetch send a file name's UTF-8 bytes as they are (RFC 7578), not Latin-1.
      defParamCharset: "utf8",
      limits: { fileSize: MAX_UPLOAD_BYTES + 1, files: MAX_FILES_PER_UPLOAD + 1, fields: 20, fieldSize: 10_000 },
    });
  } catch {
    return Promise.reject(malformed());
  }

  const fields: Record<string, string> = {};
  const parts: IncomingFilePart[] = [];
  let failure: AppError | undefined;
  let finished = false;
  let wake: (() => void) | undefined;
  let opened: ((body: MultipartBody) => void) | undefined;
  let refused: ((error: AppError) => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const fail = (error: AppError) => {
    failure ??= error;
    for (const part of parts) part.stream.destroy(failure);
    refused?.(failure);
    notify();
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

  async function* files(): AsyncGenerator<IncomingFilePart> {
    while (true) {
      if (failure) throw failure;
      const part = parts.shift();
      if (part) {
        yield part;
        continue;
      }
      if (finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  const body: MultipartBody = {
    fields,
    files: files(),
    get finished() {
      return finished;
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
    parts.push({ name: info.filename ?? "file", type: info.mimeType, stream });
    opened?.(body);
    notify();
  });
  parser.on("error", () => fail(malformed()));
  parser.on("close", () => {
    finished = true;
    opened?.(body);
    notify();
  });
  req.on("data", count);
  req.pipe(parser);

  return new Promise<MultipartBody>((resolve, reject) => {
    opened = (value) => {
      opened = undefined;
      refused = undefined;
      resolve(value);
    };
    refused = (error) => {
      opened = undefined;
      refused = undefined;
      reject(error);
    };
  });
}
