import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type ServerSideEncryption,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable } from "node:stream";
import type { Logger } from "pino";
import { AppError } from "../errors";
import type { ByteRange, FileStorage, FileStream, StoredFile } from "./file-storage";
import { checkKey, clampRange, KEY, measured, RangeNotSatisfiable, StreamedWrites } from "./stored-bytes";

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL; unset: AWS. */
  endpoint?: string;
  /** Bucket in the path (`https://host/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Server-side encryption asked for on every write (`AES256`, `aws:kms`). */
  sse?: string;
  /** `presigned`: downloads redirect to a short-lived URL; `proxy`: the API streams the bytes. */
  downloads: "proxy" | "presigned";
  /** Lifetime of a presigned download URL. */
  presignSeconds?: number;
  /** Tries per request (the SDK retries network errors and 5xx); tests lower it. */
  maxAttempts?: number;
}

/** Where the SHA-256 of the bytes is kept on each object (`x-amz-meta-sha256`). */
const SHA_META = "sha256";
/** Bytes per part of a multipart upload; one part at a time, so an upload holds at most this much. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Files as objects of one bucket (AWS S3 or an S3-compatible server), written and read as
 * streams. Keys are the same as on the other backends, so `storage migrate` can copy between them.
 */
export class S3Storage extends StreamedWrites implements FileStorage {
  readonly kind = "s3" as const;
  private readonly client: S3Client;
  constructor(
    private readonly settings: S3Settings,
    private readonly log?: Logger,
  ) {
    super();
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      maxAttempts: settings.maxAttempts ?? 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
      // S3-compatible servers often reject the SDK's default trailing CRC checksums (aws-chunked bodies).
      ...(settings.endpoint && {
        requestChecksumCalculation: "WHEN_REQUIRED" as const,
        responseChecksumValidation: "WHEN_REQUIRED" as const,
      }),
    });
  }

  /**
   * One upload: a single PUT for a file that fits one part, multipart past that. The SHA-256 is
   * known only after the last byte and S3 metadata is fixed when the object is created, so files
   * of one part (nearly all) carry it as `x-amz-meta-sha256`; larger ones carry only their size.
   */
  protected async write(key: string, source: AsyncIterable<Buffer>): Promise<StoredFile> {
    const { chunks, result } = measured(source);
    const head = await firstPart(chunks, PART_BYTES);
    const metadata = head.done ? { [SHA_META]: result.sha256 } : undefined;
    const upload = new Upload({
      client: this.client,
      queueSize: 1,
      partSize: PART_BYTES,
      leavePartsOnError: false,
      params: {
        Bucket: this.settings.bucket,
        Key: key,
        Body: head.done ? Buffer.concat(head.parts) : Readable.from(rejoin(head.parts, head.rest)),
        ContentType: "application/octet-stream",
        ...(metadata && { Metadata: metadata }),
        ...(this.settings.sse && { ServerSideEncryption: this.settings.sse as ServerSideEncryption }),
      },
    });
    try {
      await upload.done();
    } catch (error) {
      // A failure of the source (size limit) passes on as it is; the SDK has aborted the upload.
      if (head.sourceError.error) throw head.sourceError.error;
      throw this.unavailable("upload", error);
    }
    if (head.sourceError.error) throw head.sourceError.error;
    return { key, size: result.size, sha256: result.sha256 };
  }

  async get(key: string): Promise<Buffer | null> {
    const found = await this.getStream(key);
    if (!found) return null;
    const parts: Buffer[] = [];
    for await (const chunk of found.body) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  }

  async getStream(key: string, range?: ByteRange): Promise<FileStream | null> {
    checkKey(key);
    let total: number | undefined;
    let served: { start: number; end: number } | undefined;
    if (range) {
      const found = await this.stat(key);
      if (!found) return null;
      total = found.size;
      const clamped = clampRange(range, total);
      if (!clamped) throw new RangeNotSatisfiable(total);
      served = clamped;
    }
    try {
      const reply = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: key,
          ...(served && { Range: `bytes=${served.start}-${served.end}` }),
        }),
      );
      const body = reply.Body as Readable;
      const size = reply.ContentLength ?? 0;
      return { body, size, totalSize: total ?? size, ...(served && { range: served }) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.unavailable("download", error);
    }
  }

  async stat(key: string): Promise<{ size: number; sha256?: string } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key) }));
      const sha256 = head.Metadata?.[SHA_META];
      return { size: head.ContentLength ?? 0, ...(sha256 && { sha256 }) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.unavailable("stat", error);
    }
  }

  async *list(): AsyncIterable<string> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.settings.bucket, ContinuationToken: token }),
        );
      } catch (error) {
        throw this.unavailable("list", error);
      }
      for (const object of page.Contents ?? []) if (object.Key && KEY.test(object.Key)) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async downloadUrl(key: string, options: { filename: string; contentType: string }): Promise<string | null> {
    if (this.settings.downloads !== "presigned") return null;
    try {
      return await getSignedUrl(
        this.client,
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: checkKey(key),
          ResponseContentType: options.contentType,
          ResponseContentDisposition: `attachment; filename="${options.filename.replace(/["\\\r\n]/g, "_")}"`,
        }),
        { expiresIn: this.settings.presignSeconds ?? 300 },
      );
    } catch (error) {
      throw this.unavailable("presign", error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key) }));
    } catch (error) {
      if (isMissing(error)) return;
      throw this.unavailable("delete", error);
    }
  }

  /** One clear 503 for any failing request; the log line names the operation and the error kind only (no URLs, no credentials). */
  private unavailable(operation: string, error: unknown): AppError {
    const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
    this.log?.warn(
      { operation, error: error instanceof Error ? error.name : "unknown", status },
      "object storage request failed",
    );
    return new AppError("service_unavailable", "file storage is unavailable, try again later", { operation });
  }
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as S3ServiceException).$metadata?.httpStatusCode;
  return error.name === "NoSuchKey" || error.name === "NotFound" || status === 404;
}

/**
 * Reads up to `limit` bytes ahead, so a small file goes up in one PUT with its hash as metadata.
 * An error of the source is kept in `sourceError`, so the caller can tell it from a storage failure.
 */
async function firstPart(chunks: AsyncIterable<Buffer>, limit: number) {
  const iterator = chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  const sourceError: { error?: unknown } = {};
  let size = 0;
  let done = false;
  try {
    while (size <= limit) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      parts.push(next.value);
      size += next.value.length;
    }
  } catch (error) {
    sourceError.error = error;
    throw error;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } catch (error) {
      sourceError.error = error;
      throw error;
    }
  }
  return { parts, done, rest: rest(), sourceError };
}

async function* rejoin(parts: Buffer[], rest: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield* parts;
  yield* rest;
}
