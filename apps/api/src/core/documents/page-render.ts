/**
 * Draws pages of a PDF to WebP images and reads each page's text, with pdf.js (pdfjs-dist) on
 * @napi-rs/canvas and sharp for the encoding. Runs only inside the PDF worker (core/pdf-worker),
 * under its memory and time limits: the bytes came from a customer. The signing page shows these
 * images instead of loading pdf.js on the patient's phone (docs/performance.md, "Signing portal
 * speed"); the sealed PDF is untouched.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** pdf.js 6 expects Node 22; this is the part of it Node 20 lacks (only in the worker's own thread). */
export function polyfillForPdfJs(): void {
  // Defined as properties, as the built-ins they stand in for are: Node 20's types have neither.
  if (!("withResolvers" in Promise))
    Object.defineProperty(Promise, "withResolvers", {
      configurable: true,
      writable: true,
      value: function withResolvers<T>() {
        let resolve!: (value: T) => void;
        let reject!: (reason?: unknown) => void;
        const created = new Promise<T>((ok, fail) => {
          resolve = ok;
          reject = fail;
        });
        return { promise: created, resolve, reject };
      },
    });
  if (!("transferToFixedLength" in ArrayBuffer.prototype))
    Object.defineProperty(ArrayBuffer.prototype, "transferToFixedLength", {
      configurable: true,
      writable: true,
      value: function (this: ArrayBuffer, length?: number) {
        const size = length ?? this.byteLength;
        const copy = new ArrayBuffer(size);
        new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
        return copy;
      },
    });
}

export interface RenderPagesInput {
  bytes: Uint8Array;
  /** Pages to draw, counted from 1 (a batch: each batch is its own worker task with its own deadline). */
  pages: number[];
  /** Image widths in pixels, e.g. [480, 800, 1200]; the largest is drawn, the others are scaled from it. */
  widths: number[];
}

export interface RenderedPage {
  number: number;
  /** The unrotated page in PDF points (as field rectangles use them) and its /Rotate. */
  width: number;
  height: number;
  rotate: number;
  /** The page's text in reading order, for screen readers and search. */
  text: string;
  images: { width: number; height: number; webp: Uint8Array }[];
}

export type RenderPagesOutcome =
  { ok: true; pageCount: number; pages: RenderedPage[] } | { ok: false; reason: "unreadable" | "page_shape" };

/** A page taller or wider than this many times its other side is not drawn (the pixels would explode). */
export const MAX_PAGE_ASPECT = 8;
const WEBP_QUALITY = 78;

export async function renderPdfPages(input: RenderPagesInput): Promise<RenderPagesOutcome> {
  polyfillForPdfJs();
  const [pdfjs, { createCanvas }, { default: sharp }] = await Promise.all([
    import("pdfjs-dist/legacy/build/pdf.mjs"),
    import("@napi-rs/canvas"),
    import("sharp"),
  ]);
  sharp.concurrency(1);
  const pdfjsDir = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
  const task = pdfjs.getDocument({
    data: input.bytes.slice(),
    standardFontDataUrl: join(pdfjsDir, "standard_fonts") + "/",
    cMapUrl: join(pdfjsDir, "cmaps") + "/",
    enableXfa: false,
    disableFontFace: true,
    // Images inside the page larger than this many pixels are left out rather than decoded.
    maxImageSize: 4096 * 4096,
    verbosity: 0,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch {
    await task.destroy();
    return { ok: false, reason: "unreadable" };
  }
  try {
    const largest = Math.max(...input.widths);
    const pages: RenderedPage[] = [];
    for (const number of input.pages) {
      if (number < 1 || number > doc.numPages) continue;
      const page = await doc.getPage(number);
      const [x0, y0, x1, y1] = page.view as [number, number, number, number];
      const base = page.getViewport({ scale: 1 });
      if (Math.max(base.width / base.height, base.height / base.width) > MAX_PAGE_ASPECT)
        return { ok: false, reason: "page_shape" };
      const viewport = page.getViewport({ scale: largest / base.width });
      const canvas = createCanvas(Math.round(viewport.width), Math.round(viewport.height));
      const context = canvas.getContext("2d");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      // @napi-rs/canvas stands in for the DOM canvas pdf.js's types name.
      type Render = Parameters<typeof page.render>[0];
      await page.render({
        canvas: canvas as unknown as Render["canvas"],
        canvasContext: context as unknown as Render["canvasContext"],
        viewport,
      }).promise;
      const pixels = sharp(canvas.data(), { raw: { width: canvas.width, height: canvas.height, channels: 4 } });
      const images = [];
      for (const width of [...input.widths].sort((a, b) => a - b)) {
        const height = Math.round((canvas.height * width) / canvas.width);
        const webp = await pixels
          .clone()
          .resize(width, height)
          .removeAlpha()
          .webp({ quality: WEBP_QUALITY, effort: 2 })
          .toBuffer();
        images.push({ width, height, webp: new Uint8Array(webp) });
      }
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : " ") : ""))
        .join("")
        .replace(/[ \t]+/g, " ")
        .trim();
      pages.push({
        number,
        width: Math.round((x1 - x0) * 100) / 100,
        height: Math.round((y1 - y0) * 100) / 100,
        rotate: ((page.rotate % 360) + 360) % 360,
        text,
        images,
      });
      page.cleanup();
    }
    return { ok: true, pageCount: doc.numPages, pages };
  } finally {
    await task.destroy();
  }
}
