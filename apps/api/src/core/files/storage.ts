import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat as fsStat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Logger } from "pino";
import { asc, blobs, eq, gt, type Db } from "@clinsign/db";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError } from "../errors";
import type { ByteRange, FileStorage, FileStream, StorageKind, StoredFile } from "./file-storage";
import { S3Storage, type S3Settings } from "./s3-storage";
import { checkKey, clampRange, KEY, measured, newKey, RangeNotSatisfiable, StreamedWrites } from "./stored-bytes";

export { RangeNotSatisfiable } from "./stored-bytes";

import { TracedStorage } from "./traced-storage";
export type { ByteRange, FileStorage, FileStream, StorageKind, StoredFile } from "./file-storage";

/** Files under DATA_DIR/files, written atomically (temp file, then rename). */
export class FsStorage extends StreamedWrites implements FileStorage {
  readonly kind = "fs" as const;
  private readonly root: string;
  constructor(dataDir: string) {
    super();
    this.root = resolve(dataDir, "files");
  }
  private path(key: string): string {
    const path = resolve(this.root, checkKey(key));
    if (!path.startsWith(this.root + sep)) throw new Error("invalid storage key");
    return path;
  }
  protected async write(key: string, source: AsyncIterable<Buffer>): Promise<StoredFile> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.tmp-${randomSecret(8)}`);
    const { chunks, result } = measured(source);
    const out = createWriteStream(temp, { mode: 0o600 });
    try {
      await pipeline(chunks, out);
      await rename(temp, path);
    } catch (error) {
      // The file may still be opening when the source fails: remove it only once it is closed.
      if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
      await rm(temp, { force: true });
      throw error;
    }
    return { key, ...result };
  }
  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }
  async getStream(key: string, range?: ByteRange): Promise<FileStream | null> {
    const found = await this.stat(key);
    if (!found) return null;
    const totalSize = found.size;
    if (!range) return { body: createReadStream(this.path(key)), size: totalSize, totalSize };
    const served = clampRange(range, totalSize);
    if (!served) throw new RangeNotSatisfiable(totalSize);
    return {
      body: createReadStream(this.path(key), served),
      size: served.end - served.start + 1,
      totalSize,
      range: served,
    };
  }
  async stat(key: string): Promise<{ size: number } | null> {
    try {
      return { size: (await fsStat(this.path(key))).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }
  async *list(): AsyncIterable<string> {
    let entries: string[];
    try {
      entries = await readdir(this.root, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      const key = entry.split(sep).join("/");
      if (KEY.test(key)) yield key;
    }
  }
  async downloadUrl(): Promise<null> {
    return null;
  }
  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

/** Files as rows of `blobs`, for deployments where PostgreSQL is the only shared state. */
export class DbStorage implements FileStorage {
  readonly kind = "db" as const;
  constructor(private readonly db: Db) {}
  put(prefix: string, bytes: Buffer): Promise<StoredFile> {
    return this.write(newKey(prefix), bytes);
  }
  /** A row holds the whole file, so the bytes are gathered first (their size is bounded by the caller). */
  async putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.write(newKey(prefix), await gather(chunks));
  }
  async putAs(key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.write(checkKey(key), await gather(chunks));
  }
  private async write(key: string, bytes: Buffer): Promise<StoredFile> {
    const stored = { key, size: bytes.length, sha256: sha256Hex(bytes) };
    const { key: _key, ...rest } = stored;
    await this.db
      .insert(blobs)
      .values({ ...stored, bytes })
      .onConflictDoUpdate({ target: blobs.key, set: { ...rest, bytes } });
    return stored;
  }
  async get(key: string): Promise<Buffer | null> {
    const [row] = await this.db
      .select({ bytes: blobs.bytes })
      .from(blobs)
      .where(eq(blobs.key, checkKey(key)));
    return row?.bytes ?? null;
  }
  /** The row is read whole; the stream only spares the callers a second code path. */
  async getStream(key: string, range?: ByteRange): Promise<FileStream | null> {
    const bytes = await this.get(key);
    if (!bytes) return null;
    if (!range) return { body: Readable.from([bytes]), size: bytes.length, totalSize: bytes.length };
    const served = clampRange(range, bytes.length);
    if (!served) throw new RangeNotSatisfiable(bytes.length);
    const part = bytes.subarray(served.start, served.end + 1);
    return { body: Readable.from([part]), size: part.length, totalSize: bytes.length, range: served };
  }
  async stat(key: string): Promise<{ size: number; sha256: string } | null> {
    const [row] = await this.db
      .select({ size: blobs.size, sha256: blobs.sha256 })
      .from(blobs)
      .where(eq(blobs.key, checkKey(key)));
    return row ?? null;
  }
  async *list(): AsyncIterable<string> {
    let after = "";
    for (;;) {
      const rows = await this.db
        .select({ key: blobs.key })
        .from(blobs)
        .where(gt(blobs.key, after))
        .orderBy(asc(blobs.key))
        .limit(500);
      for (const row of rows) yield row.key;
      if (rows.length < 500) return;
      after = rows[rows.length - 1]!.key;
    }
  }
  async downloadUrl(): Promise<null> {
    return null;
  }
  async delete(key: string): Promise<void> {
    await this.db.delete(blobs).where(eq(blobs.key, checkKey(key)));
  }
}

async function gather(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

export interface StorageConfig {
  kind: StorageKind;
  dataDir: string;
  s3?: S3Settings;
}

export function createStorage(config: StorageConfig, db: Db, log?: Logger): FileStorage {
  return new TracedStorage(storageBackend(config, db, log));
}

/**
 * The backend STORAGE names, untraced: the service wraps it (`createStorage`); backup and restore
 * copy through it directly. Only STORAGE=db needs the database.
 */
export function storageBackend(config: StorageConfig, db?: Db, log?: Logger): FileStorage {
  if (config.kind === "db") {
    if (!db) throw new Error("STORAGE=db needs the database");
    return new DbStorage(db);
  }
  if (config.kind === "s3") {
    if (!config.s3) throw new AppError("invalid_request", "STORAGE=s3 needs S3_BUCKET and the other S3_* settings");
    return new S3Storage(config.s3, log);
  }
  return new FsStorage(config.dataDir);
}

/**
 * Stores several files that belong together (a seal's PDF and metadata): when one write fails,
 * the ones already stored are removed again, so no half set is left behind.
 */
export async function putAll(storage: FileStorage, prefix: string, files: Buffer[]): Promise<StoredFile[]> {
  const results = await Promise.allSettled(files.map((bytes) => storage.put(prefix, bytes)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (!failed) return results.map((r) => (r as PromiseFulfilledResult<StoredFile>).value);
  await removeFiles(
    storage,
    results.flatMap((r) => (r.status === "fulfilled" ? [r.value.key] : [])),
  );
  throw failed.reason;
}

/** Removes files no row points at (after a failed write of the rows); a failure to remove is left to the sweeps. */
export async function removeFiles(storage: FileStorage, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => storage.delete(key).catch(() => {})));
}
