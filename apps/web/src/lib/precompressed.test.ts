import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { precompress, precompressedFile } from "./precompressed.mjs";

const root = mkdtempSync(join(tmpdir(), "precompressed-"));
const staticDir = join(root, "static");
mkdirSync(join(staticDir, "chunks"), { recursive: true });
const script = "console.log('hello');\n".repeat(200);
writeFileSync(join(staticDir, "chunks", "app.js"), script);
writeFileSync(join(root, "secret.js"), "not a build asset");
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("brotli copies of the build's static assets", () => {
  it("writes a .br beside each compressible file that decompresses to the original", async () => {
    expect(await precompress(staticDir)).toBe(1);
    expect(brotliDecompressSync(readFileSync(join(staticDir, "chunks", "app.js.br"))).toString()).toBe(script);
  });

  it("serves it only to browsers that accept br, for GET and HEAD of /_next/static", async () => {
    const found = await precompressedFile(staticDir, "GET", "/_next/static/chunks/app.js", "gzip, deflate, br, zstd");
    expect(found).toMatchObject({
      file: join(staticDir, "chunks", "app.js.br"),
      type: "application/javascript; charset=UTF-8",
    });
    expect(await precompressedFile(staticDir, "GET", "/_next/static/chunks/app.js", "gzip")).toBeNull();
    expect(await precompressedFile(staticDir, "POST", "/_next/static/chunks/app.js", "br")).toBeNull();
    expect(await precompressedFile(staticDir, "GET", "/chunks/app.js", "br")).toBeNull();
    expect(await precompressedFile(staticDir, "GET", "/_next/static/chunks/missing.js", "br")).toBeNull();
  });

  it("never leaves the static folder, whatever the path says", async () => {
    for (const url of [
      "/_next/static/../secret.js",
      "/_next/static/%2e%2e/secret.js",
      "/_next/static/chunks/%2e%2e%2f..%2fsecret.js",
      "/_next/static/%E0%A4%A.js",
    ]) {
      expect(await precompressedFile(staticDir, "GET", url, "br")).toBeNull();
    }
  });
});
