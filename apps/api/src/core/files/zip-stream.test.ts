import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readZip } from "../../testing/zip";
import type { FileDigests } from "../fhir/questionnaire-response";
import { FsStorage } from "./storage";
import { zipStream, type ZipSource } from "./zip-stream";

const dir = mkdtempSync(join(tmpdir(), "clinsign-zip-"));
const storage = new FsStorage(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(chunks: AsyncGenerator<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

describe("zipStream", () => {
  it("streams stored files byte for byte, digests them on the way, then the generated entries", async () => {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    const small = Buffer.from("%PDF-1.4 small");
    const [a, b] = [await storage.put("zip-test", big), await storage.put("zip-test", small)];
    const digests = new Map<string, FileDigests>();
    let seenBeforeManifest = 0;
    const sources: ZipSource[] = [
      { path: "attachments/big.bin", key: a.key, size: big.length, passed: (d) => digests.set("big", d) },
      { path: "documents/small.pdf", key: b.key, size: small.length, passed: (d) => digests.set("small", d) },
      {
        path: "manifest.json",
        generate: async () => {
          seenBeforeManifest = digests.size;
          return Buffer.from(JSON.stringify(Object.fromEntries(digests)));
        },
      },
    ];
    const entries = await readZip(await collect(zipStream(storage, sources, new Date())));
    expect([...entries.keys()]).toEqual(["attachments/big.bin", "documents/small.pdf", "manifest.json"]);
    expect(entries.get("attachments/big.bin")!.equals(big)).toBe(true);
    expect(entries.get("documents/small.pdf")!.equals(small)).toBe(true);
    expect(seenBeforeManifest).toBe(2);
    expect(digests.get("big")).toEqual({
      size: big.length,
      sha256Hex: createHash("sha256").update(big).digest("hex"),
      sha1Base64: createHash("sha1").update(big).digest("base64"),
    });
    expect(JSON.parse(entries.get("manifest.json")!.toString()).small.sha256Hex).toBe(b.sha256);
  });

  it("fails instead of ending short when a stored file is gone or changed size", async () => {
    const file = await storage.put("zip-test", Buffer.from("twelve bytes"));
    const gone = zipStream(
      storage,
      [{ path: "a", key: "zip-test/202601/" + "x".repeat(32), size: 1, passed: () => {} }],
      new Date(),
    );
    await expect(collect(gone)).rejects.toThrow(/gone/);
    const changed = zipStream(storage, [{ path: "a", key: file.key, size: 5, passed: () => {} }], new Date());
    await expect(collect(changed)).rejects.toThrow(/unexpected number of bytes/);
  });
});
