import { createHash } from "node:crypto";
import { randomSecret } from "../crypto";
import type { ByteRange, StoredFile } from "./file-storage";

export const KEY = /^[a-z0-9-]+\/[0-9]{6}\/[A-Za-z0-9_-]{32,}$/;

export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error("invalid storage key");
  return key;
}

export function newKey(prefix: string): string {
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error(`bad storage prefix ${prefix}`);
  const month = new Date().toISOString().slice(0, 7).replace("-", "");
  return `${prefix}/${month}/${randomSecret(24)}`;
}

/** Passes chunks on while counting them and hashing them (SHA-256). */
export function measured(chunks: AsyncIterable<Buffer>) {
  const hash = createHash("sha256");
  const result = { size: 0, sha256: "" };
  async function* pass() {
    for await (const chunk of chunks) {
      hash.update(chunk);
      result.size += chunk.length;
      yield chunk;
    }
    result.sha256 = hash.digest("hex");
  }
  return { chunks: pass(), result };
}

async function* once(bytes: Buffer) {
  yield bytes;
}

/** Clamps a requested range to a file of `total` bytes; null when it starts past the end. */
export function clampRange(range: ByteRange, total: number): { start: number; end: number } | null {
  if (range.start >= total || range.start < 0) return null;
  return { start: range.start, end: Math.min(range.end ?? total - 1, total - 1) };
}

/** Thrown for a range that starts past the end of the file (HTTP 416). */
export class RangeNotSatisfiable extends Error {
  constructor(readonly totalSize: number) {
    super("range not satisfiable");
  }
}

/**
 * The three ways to store bytes, for backends that write a stream: a new key under a prefix (from
 * a buffer or a stream), or a given key (`storage migrate`). Each backend writes whole or not at all.
 */
export abstract class StreamedWrites {
  protected abstract write(key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile>;
  put(prefix: string, bytes: Buffer): Promise<StoredFile> {
    return this.write(newKey(prefix), once(bytes));
  }
  putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.write(newKey(prefix), chunks);
  }
  putAs(key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.write(checkKey(key), chunks);
  }
}
