import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb } from "@clinsign/db/testing";
import type { Database } from "@clinsign/db";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { startTestS3, type TestS3 } from "../../testing/s3-server";
import { S3Storage } from "./s3-storage";
import { DbStorage, FsStorage, putAll, RangeNotSatisfiable, type FileStorage } from "./storage";

let database: Database;
let s3: TestS3;
const dir = mkdtempSync(join(tmpdir(), "clinsign-storage-"));
beforeAll(async () => {
  database = await createTestDb();
  s3 = await startTestS3();
});
afterAll(async () => {
  await database.close();
  await s3.close();
  rmSync(dir, { recursive: true, force: true });
});

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(parts).toString();
}

describe.each([
  ["fs", () => new FsStorage(dir)],
  ["db", () => new DbStorage(database.db)],
  ["s3", () => new S3Storage(s3.settings())],
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

  it("streams a file whole or one byte range, and knows a missing key", async () => {
    const storage = make();
    const stored = await storage.put("documents", Buffer.from("0123456789"));
    const whole = (await storage.getStream(stored.key))!;
    expect(whole).toMatchObject({ size: 10, totalSize: 10 });
    expect(await text(whole.body)).toBe("0123456789");
    const part = (await storage.getStream(stored.key, { start: 2, end: 5 }))!;
    expect(part).toMatchObject({ size: 4, totalSize: 10, range: { start: 2, end: 5 } });
    expect(await text(part.body)).toBe("2345");
    const tail = (await storage.getStream(stored.key, { start: 7 }))!;
    expect(await text(tail.body)).toBe("789");
    await expect(storage.getStream(stored.key, { start: 10 })).rejects.toBeInstanceOf(RangeNotSatisfiable);
    expect(await storage.stat(stored.key)).toMatchObject({ size: 10 });
    const missing = "documents/202601/" + "x".repeat(32);
    expect(await storage.getStream(missing)).toBeNull();
    expect(await storage.get(missing)).toBeNull();
    expect(await storage.stat(missing)).toBeNull();
    await storage.delete(missing);
  });

  it("writes under a given key (storage migrate) and lists every key", async () => {
    const storage = make();
    const key = "signed/202501/" + "k".repeat(32);
    async function* chunks() {
      yield Buffer.from("kept ");
      yield Buffer.from("key");
    }
    expect(await storage.putAs(key, chunks())).toEqual({ key, size: 8, sha256: sha256Hex(Buffer.from("kept key")) });
    expect((await storage.get(key))!.toString()).toBe("kept key");
    const keys: string[] = [];
    for await (const listed of storage.list()) keys.push(listed);
    expect(keys).toContain(key);
    await storage.delete(key);
  });
});

describe("s3 storage", () => {
  it("keeps the SHA-256 as object metadata, and streams a multipart upload of several parts", async () => {
    const storage = new S3Storage(s3.settings());
    const small = await storage.put("documents", Buffer.from("small"));
    expect(await storage.stat(small.key)).toEqual({ size: 5, sha256: sha256Hex(Buffer.from("small")) });
    const mib = Buffer.alloc(1024 * 1024, 7);
    async function* big() {
      for (let i = 0; i < 17; i++) yield mib;
    }
    const stored = await storage.putStream("form-uploads", big());
    expect(stored.size).toBe(17 * mib.length);
    expect(await storage.stat(stored.key)).toEqual({ size: 17 * mib.length });
    const range = (await storage.getStream(stored.key, { start: 16 * mib.length, end: 16 * mib.length + 3 }))!;
    expect([...Buffer.from(await text(range.body), "latin1")]).toEqual([7, 7, 7, 7]);
    await storage.delete(stored.key);
  });

  it("hands out a presigned download URL only when configured, which fetches the file", async () => {
    expect(
      await new S3Storage(s3.settings()).downloadUrl("documents/202601/" + "a".repeat(32), {
        filename: "a.pdf",
        contentType: "application/pdf",
      }),
    ).toBeNull();
    const storage = new S3Storage(s3.settings({ downloads: "presigned", presignSeconds: 60 }));
    const stored = await storage.put("documents", Buffer.from("%PDF-1.7 presigned"));
    const url = (await storage.downloadUrl(stored.key, { filename: "a.pdf", contentType: "application/pdf" }))!;
    expect(url).toContain("X-Amz-Expires=60");
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("%PDF-1.7 presigned");
  });

  it("reports a failing endpoint as one clear 503 without credentials, and keeps nothing", async () => {
    const warnings: unknown[] = [];
    const log = { warn: (details: unknown, message: string) => warnings.push({ details, message }) };
    const down = new S3Storage(s3.settings({ endpoint: "http://127.0.0.1:9", maxAttempts: 1 }), log as never);
    const failure = await down.put("documents", Buffer.from("lost")).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({
      code: "service_unavailable",
      message: "file storage is unavailable, try again later",
    });
    expect((failure as Error).stack ?? "").not.toContain("S3RVER");
    await expect(down.get("documents/202601/" + "b".repeat(32))).rejects.toMatchObject({ code: "service_unavailable" });
    expect(JSON.stringify(warnings)).not.toMatch(/S3RVER|127\.0\.0\.1/);
    expect(warnings[0]).toMatchObject({ details: { operation: "upload" }, message: "object storage request failed" });
  });

  it("sends the server-side encryption header when configured", async () => {
    const storage = new S3Storage(s3.settings({ sse: "AES256" }));
    const stored = await storage.put("signed", Buffer.from("sealed"));
    expect((await storage.get(stored.key))!.toString()).toBe("sealed");
  });
});

describe("putAll", () => {
  it("stores a set of files, or on any failure removes the ones already stored", async () => {
    const fs = new FsStorage(dir);
    const stored = await putAll(fs, "signed", [Buffer.from("a"), Buffer.from("b")]);
    expect(await Promise.all(stored.map(async (f) => (await fs.get(f.key))!.toString()))).toEqual(["a", "b"]);
    const written: string[] = [];
    let calls = 0;
    const flaky: FileStorage = Object.assign(Object.create(fs) as FileStorage, {
      put: async (prefix: string, bytes: Buffer) => {
        if (++calls === 2) throw new AppError("service_unavailable", "file storage is unavailable, try again later");
        const file = await fs.put(prefix, bytes);
        written.push(file.key);
        return file;
      },
    });
    await expect(putAll(flaky, "signed", [Buffer.from("1"), Buffer.from("2"), Buffer.from("3")])).rejects.toMatchObject(
      {
        code: "service_unavailable",
      },
    );
    expect(written.length).toBeGreaterThan(0);
    for (const key of written) expect(await fs.get(key)).toBeNull();
  });
});
