import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import { AppError } from "../core/errors";
import { MAX_FILES_PER_UPLOAD, MAX_UPLOAD_BYTES, type IncomingFile } from "../core/uploads/uploads";

/** Reads a multipart/form-data body: text fields and up to 10 files of at most 25 MB each (413 beyond). */
export function readMultipart(req: IncomingMessage): Promise<{ fields: Record<string, string>; files: IncomingFile[] }> {
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    return Promise.reject(new AppError("unsupported_media_type", "send the files as multipart/form-data"));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, files: MAX_FILES_PER_UPLOAD, fields: 20, fieldSize: 10_000 } });
    } catch {
      return reject(new AppError("invalid_request", "malformed multipart body"));
    }
    const fields: Record<string, string> = {};
    const files: IncomingFile[] = [];
    let failure: AppError | undefined;
    parser.on("field", (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on("file", (_name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("limit", () => {
        failure ??= new AppError("payload_too_large", `${info.filename} is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
      });
      stream.on("end", () => files.push({ name: info.filename ?? "file", type: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on("filesLimit", () => {
      failure ??= new AppError("invalid_request", `at most ${MAX_FILES_PER_UPLOAD} files per upload`);
    });
    parser.on("error", () => reject(failure ?? new AppError("invalid_request", "malformed multipart body")));
    parser.on("close", () => (failure ? reject(failure) : resolve({ fields, files })));
    req.pipe(parser);
  });
}
