import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { makePdf } from "../../testing/signature-fixtures";
import { PdfLimitError, runPdfTask } from "../pdf-worker/run";

const limits = { memoryMb: 256, timeoutMs: 30_000, concurrency: 2 };
const widths = [480, 800, 1200];

describe("renderPages (the signing page's page images, in the PDF worker)", () => {
  it("draws each asked page at every width, keeps its point size and rotation, and reads its text", async () => {
    const bytes = await makePdf([
      [595.28, 841.89],
      [841.89, 595.28],
      [300, 400],
    ]);
    const outcome = await runPdfTask(limits, "renderPages", { bytes, pages: [1, 2, 3, 4], widths });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.pageCount).toBe(3);
    // Page 4 does not exist: left out, not an error.
    expect(outcome.pages.map((page) => page.number)).toEqual([1, 2, 3]);
    const [a4, landscape] = outcome.pages;
    expect(a4).toMatchObject({ width: 595.28, height: 841.89, rotate: 0, text: "Test document, page 1" });
    expect(landscape).toMatchObject({ width: 841.89, height: 595.28, text: "Test document, page 2" });
    expect(a4!.images.map((image) => [image.width, image.height])).toEqual([
      [480, 679],
      [800, 1131],
      [1200, 1697],
    ]);
    // Real WebP images of that size, white paper with dark text on it.
    const small = a4!.images[0]!;
    const meta = await sharp(small.webp).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 480, 679]);
    const stats = await sharp(small.webp).stats();
    expect(stats.channels[0]!.max).toBe(255);
    expect(stats.channels[0]!.min).toBeLessThan(100);
  });

  it("answers unreadable for bytes that are no PDF", async () => {
    const outcome = await runPdfTask(limits, "renderPages", {
      bytes: new Uint8Array(Buffer.from("%PDF-1.7\nnot really")),
      pages: [1],
      widths,
    });
    expect(outcome).toEqual({ ok: false, reason: "unreadable" });
  });

  it("refuses a page whose content stream is a compression bomb within the worker's limits", async () => {
    // 1 GB of drawing operators compressed to about a megabyte: the worker must give up, not the process.
    const operators = Buffer.alloc(1024 * 1024 * 1024, "0 0 m 1 1 l S\n");
    const compressed = deflateSync(operators, { level: 9 });
    const pdf = Buffer.concat([
      Buffer.from(
        "%PDF-1.7\n" +
          "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
          "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
          "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>\nendobj\n" +
          `4 0 obj\n<< /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`,
      ),
      compressed,
      Buffer.from("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 5 >>\n%%EOF\n"),
    ]);
    const tight = { memoryMb: 128, timeoutMs: 10_000, concurrency: 1 };
    const started = Date.now();
    const error = await runPdfTask(tight, "renderPages", { bytes: pdf, pages: [1], widths }).then(
      (outcome) => outcome,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(PdfLimitError);
    expect((error as PdfLimitError).message).toMatch(/memory|longer than 10 s|stopped/);
    // The process is fine and the next document is drawn as usual.
    expect(Date.now() - started).toBeLessThan(60_000);
    const next = await runPdfTask(limits, "renderPages", { bytes: await makePdf(), pages: [1], widths: [480] });
    expect(next.ok).toBe(true);
  }, 120_000);
});
