/**
 * What every storage backend is (storage.ts: files, rows; s3-storage.ts: a bucket), kept apart
 * from the backends so that they and their shared helpers (stored-bytes.ts) depend on it, not on
 * each other.
 */
import type { Readable } from "node:stream";

export interface StoredFile {
  key: string;
  size: number;
  sha256: string;
}

/** A stored file's bytes as a stream; `range` was applied when one was asked for. */
export interface FileStream {
  body: Readable;
  /** Bytes in `body`. */
  size: number;
  /** Bytes of the whole file. */
  totalSize: number;
  /** The inclusive byte range served, when a range was asked for. */
  range?: { start: number; end: number };
}

/** Inclusive byte offsets; `end` past the file is cut to its last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

/** Private file storage; keys are opaque and never derived from caller input. */
export interface FileStorage {
  readonly kind: StorageKind;
  put(prefix: string, bytes: Buffer): Promise<StoredFile>;
  /**
   * Stores bytes as they arrive (uploads); the caller bounds their size. When `chunks` throws,
   * nothing is kept and the error passes on.
   */
  putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile>;
  /**
   * Stores bytes under an existing key, replacing what is there (`storage migrate` keeps keys).
   * Like putStream, keeps nothing when `chunks` throws.
   */
  putAs(key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile>;
  /** The bytes, or null when the key is unknown. */
  get(key: string): Promise<Buffer | null>;
  /** The bytes as a stream (optionally one byte range), or null when the key is unknown. */
  getStream(key: string, range?: ByteRange): Promise<FileStream | null>;
  /** Size, and the SHA-256 where the backend keeps it without reading the file; null when unknown. */
  stat(key: string): Promise<{ size: number; sha256?: string } | null>;
  /** Every stored key, in no particular order. */
  list(): AsyncIterable<string>;
  /**
   * A short-lived URL the client may fetch the file from directly, when the backend and the
   * configuration give one (`S3_DOWNLOADS=presigned`); null: serve the bytes through the API.
   */
  downloadUrl(key: string, options: { filename: string; contentType: string }): Promise<string | null>;
  /** Removes the file; unknown keys are no error. */
  delete(key: string): Promise<void>;
}

export type StorageKind = "fs" | "db" | "s3";
