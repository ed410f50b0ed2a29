import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { dirname, join, resolve, sep } from "node:path";
import { blobs, eq, type Db } from "@clinsign/db";
import { randomSecret, sha256Hex } from "../crypto";

export interface StoredFile {
  key: string;
  size: number;
  sha256: string;
}

/** Private file storage; keys are opaque and never derived from caller input. */
export interface FileStorage {
  put(prefix: string, bytes: Buffer): Promise<StoredFile>;
  /**
   * Stores bytes as they arrive (uploads); the caller bounds their size. When `chunks` throws,
   * nothing is kept and the error passes on.
   */
  putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile>;
  /** The bytes, or null when the key is unknown. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

const KEY = /^[a-z0-9-]+\/[0-9]{6}\/[A-Za-z0-9_-]{32,}$/;

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error("invalid storage key");
  return key;
}

function newKey(prefix: string): string {
  if (!/^[a-z0-9-]+$/.test(prefix)) throw new Error(`bad storage prefix ${prefix}`);
  const month = new Date().toISOString().slice(0, 7).replace("-", "");
  return `${prefix}/${month}/${randomSecret(24)}`;
}

/** Files under DATA_DIR/files, written atomically (temp file, then rename). */
export class FsStorage implements FileStorage {
  private readonly root: string;
  constructor(dataDir: string) {
    this.root = resolve(dataDir, "files");
  }
  private path(key: string): string {
    const path = resolve(this.root, checkKey(key));
    if (!path.startsWith(this.root + sep)) throw new Error("invalid storage key");
    return path;
  }
  async put(prefix: string, bytes: Buffer): Promise<StoredFile> {
    const key = newKey(prefix);
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.tmp-${randomSecret(8)}`);
    await writeFile(temp, bytes, { mode: 0o600 });
    await rename(temp, path);
    return { key, size: bytes.length, sha256: sha256Hex(bytes) };
  }
  async putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    const key = newKey(prefix);
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.tmp-${randomSecret(8)}`);
    const hash = createHash("sha256");
    let size = 0;
    async function* counted() {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    }
    const out = createWriteStream(temp, { mode: 0o600 });
    try {
      await pipeline(counted(), out);
      await rename(temp, path);
    } catch (error) {
      // The file may still be opening when the source fails: remove it only once it is closed.
      if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
      await rm(temp, { force: true });
      throw error;
    }
    return { key, size, sha256: hash.digest("hex") };
  }
  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }
  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

/** Files as rows of `blobs`, for deployments where PostgreSQL is the only shared state. */
export class DbStorage implements FileStorage {
  constructor(private readonly db: Db) {}
  async put(prefix: string, bytes: Buffer): Promise<StoredFile> {
    const stored = { key: newKey(prefix), size: bytes.length, sha256: sha256Hex(bytes) };
    await this.db.insert(blobs).values({ ...stored, bytes });
    return stored;
  }
  /** A row holds the whole file, so the bytes are gathered first (their size is bounded by the caller). */
  async putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    const parts: Buffer[] = [];
    for await (const chunk of chunks) parts.push(chunk);
    return this.put(prefix, Buffer.concat(parts));
  }
  async get(key: string): Promise<Buffer | null> {
    const [row] = await this.db
      .select({ bytes: blobs.bytes })
      .from(blobs)
      .where(eq(blobs.key, checkKey(key)));
    return row?.bytes ?? null;
  }
  async delete(key: string): Promise<void> {
    await this.db.delete(blobs).where(eq(blobs.key, checkKey(key)));
  }
}

export function createStorage(kind: "fs" | "db", dataDir: string, db: Db): FileStorage {
  return kind === "db" ? new DbStorage(db) : new FsStorage(dataDir);
}
