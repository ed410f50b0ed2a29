import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb } from "@clinsign/db/testing";
import type { Database } from "@clinsign/db";
import { startTestS3, type TestS3 } from "../../testing/s3-server";
import { migrateStorage, type MigrationProgress } from "./migrate";
import { S3Storage } from "./s3-storage";
import { DbStorage, FsStorage, type FileStorage, type StoredFile } from "./storage";

let database: Database;
let s3: TestS3;
const dir = mkdtempSync(join(tmpdir(), "clinsign-migrate-"));
beforeAll(async () => {
  database = await createTestDb();
  s3 = await startTestS3(["migrate-fs-s3"]);
});
afterAll(async () => {
  await database.close();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The target fails on its `failAt`-th write, as if the process stopped there. */
function interrupted(target: FileStorage, failAt: number): FileStorage {
  let writes = 0;
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === "putAs")
        return async (key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> => {
          if (++writes === failAt) {
            for await (const _ of chunks) break; // half read, then gone
            throw new Error("interrupted");
          }
          return object.putAs(key, chunks);
        };
      const value = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

async function keysOf(storage: FileStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storage.list()) keys.push(key);
  return keys.sort();
}

describe("migrateStorage", () => {
  it("copies fs → s3 → db under the same keys, resumes after an interruption and skips what is there", async () => {
    const fs = new FsStorage(dir);
    const bucket = new S3Storage(s3.settings());
    const db = new DbStorage(database.db);
    const files = await Promise.all(
      ["documents", "signed", "form-uploads", "logo-x", "signatures"].map((prefix, i) =>
        fs.put(prefix, Buffer.from(`%PDF-1.7 file ${i} `.repeat(i + 1))),
      ),
    );
    const keys = files.map((f) => f.key).sort();

    // fs → s3, stopped at the third file.
    await expect(migrateStorage(fs, interrupted(bucket, 3))).rejects.toThrow("interrupted");
    expect(await keysOf(bucket)).toHaveLength(2);
    const progress: MigrationProgress[] = [];
    expect(await migrateStorage(fs, bucket, (p) => progress.push(p))).toMatchObject({
      total: 5,
      copied: 3,
      skipped: 2,
    });
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4, 5]);
    expect(await keysOf(bucket)).toEqual(keys);
    for (const file of files) {
      expect(await bucket.stat(file.key)).toEqual({ size: file.size, sha256: file.sha256 });
      expect((await bucket.get(file.key))!.equals((await fs.get(file.key))!)).toBe(true);
    }
    expect(await migrateStorage(fs, bucket)).toMatchObject({ copied: 0, skipped: 5 });

    // s3 → db, stopped at the first file, then resumed.
    await expect(migrateStorage(bucket, interrupted(db, 1))).rejects.toThrow("interrupted");
    expect(await keysOf(db)).toEqual([]);
    expect(await migrateStorage(bucket, db)).toMatchObject({ total: 5, copied: 5, skipped: 0 });
    for (const file of files) expect(await db.stat(file.key)).toEqual({ size: file.size, sha256: file.sha256 });
    expect(await migrateStorage(bucket, db)).toMatchObject({ copied: 0, skipped: 5 });
  });

  it("copies again a file whose copy differs", async () => {
    const db = new DbStorage(database.db);
    const bucket = new S3Storage(s3.settings());
    const stored = await db.put("documents", Buffer.from("the right bytes"));
    await bucket.putAs(
      stored.key,
      (async function* () {
        yield Buffer.from("the wrong bytes");
      })(),
    );
    const result = await migrateStorage(db, bucket);
    expect(result.copied).toBeGreaterThanOrEqual(1);
    expect((await bucket.get(stored.key))!.toString()).toBe("the right bytes");
  });
});
