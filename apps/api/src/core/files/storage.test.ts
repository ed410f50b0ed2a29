import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb } from "@clinsign/db/testing";
import type { Database } from "@clinsign/db";
import { sha256Hex } from "../crypto";
import { DbStorage, FsStorage, type FileStorage } from "./storage";

let database: Database;
const dir = mkdtempSync(join(tmpdir(), "clinsign-storage-"));
beforeAll(async () => {
  database = await createTestDb();
});
afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ["fs", () => new FsStorage(dir)],
  ["db", () => new DbStorage(database.db)],
] as [string, () => FileStorage][])("%s storage", (_name, make) => {
  it("stores bytes under an opaque key with their SHA-256, reads them back and deletes them", async () => {
    const storage = make();
    const bytes = Buffer.from("%PDF-1.7 test bytes");
    const stored = await storage.put("documents", bytes);
    expect(stored.key).toMatch(/^documents\/\d{6}\/[A-Za-z0-9_-]{32}$/);
    expect(stored).toMatchObject({ size: bytes.length, sha256: sha256Hex(bytes) });
    expect((await storage.get(stored.key))!.equals(bytes)).toBe(true);
    await storage.delete(stored.key);
    expect(await storage.get(stored.key)).toBeNull();
  });

  it("stores a stream of chunks, and keeps nothing when the stream fails", async () => {
    const storage = make();
    async function* chunks(fail: boolean) {
      yield Buffer.from("%PDF-1.7 ");
      yield Buffer.from("streamed");
      if (fail) throw new Error("too large");
    }
    const stored = await storage.putStream("form-uploads", chunks(false));
    expect(stored).toMatchObject({ size: 17, sha256: sha256Hex(Buffer.from("%PDF-1.7 streamed")) });
    expect((await storage.get(stored.key))!.toString()).toBe("%PDF-1.7 streamed");
    await expect(storage.putStream("form-uploads", chunks(true))).rejects.toThrow("too large");
    if (storage instanceof FsStorage)
      expect(readdirSync(dirname(join(dir, "files", stored.key)))).toEqual([basename(stored.key)]);
  });

  it("refuses keys that try to leave the storage area", async () => {
    await expect(make().get("../../etc/passwd")).rejects.toThrow("invalid storage key");
  });
});
