/**
 * The signing page's page images: every page of a stored PDF drawn once, at a few widths (WebP),
 * with each page's text, so that a patient's phone shows the document without pdf.js
 * (docs/performance.md, "Signing portal speed"). A document version's PDF never changes, so the
 * images are made once per stored PDF (versions that share a PDF share them) and served with
 * year-long cache lifetimes; the sealed PDF is made from the PDF itself, never from these.
 *
 * Files in FileStorage, named after the PDF's key `documents/<yyyymm>/<random>`:
 * `document-pages/<yyyymm>/<random>-<page>-<width>` (WebP) and, written last,
 * `document-pages/<yyyymm>/<random>-manifest` (JSON: page sizes, rotation, text, widths). No
 * manifest: not (yet) drawn, and the page falls back to pdf.js.
 */
import type { Services } from "../context";
import type { OrgContext } from "../context";
import { afterCommit } from "../context";
import { enqueueJob } from "../jobs/queue";
import type { JobHandler } from "../jobs/execute";
import { PdfLimitError, runPdfTask } from "../pdf-worker/run";
import type { RenderedPage } from "./page-render";

/** Widths the images are drawn at: a phone (1× and a bit), a phone at 2×, a tablet or desktop. */
export const PAGE_IMAGE_WIDTHS = [480, 800, 1200] as const;
/** Pages drawn per worker task: each batch has the worker's whole deadline and a fresh heap. */
const PAGES_PER_TASK = 4;
/** Longer documents are shown with pdf.js (the patient reads them on a desktop anyway). */
export const MAX_IMAGE_PAGES = 200;

export const PAGE_IMAGES_JOB = "document.page_images";
const PAGE_IMAGES_MAX_ATTEMPTS = 3;

export interface PageImageManifest {
  /** Set when the PDF cannot be drawn here (unreadable by pdf.js, too many pages, an extreme page shape, over the limits). */
  unavailable?: string;
  widths: number[];
  pages: {
    number: number;
    width: number;
    height: number;
    rotate: number;
    text: string;
    /** Pixel size of each image, in the order of `widths`. */
    images: { width: number; height: number }[];
  }[];
}

/** `documents/202611/abc…` → `document-pages/202611/abc…`: the same month and name, its own prefix. */
const baseOf = (pdfKey: string) => pdfKey.replace(/^[a-z0-9-]+\//, "document-pages/");
export const pageImageKey = (pdfKey: string, page: number, width: number) => `${baseOf(pdfKey)}-${page}-${width}`;
export const pageManifestKey = (pdfKey: string) => `${baseOf(pdfKey)}-manifest`;
/** The inverse: `document-pages/202611/abc…-3-480` (or `…-manifest`) → `202611/abc…`, the PDF's key without its prefix; null for other keys. */
export const pagedPdfOf = (key: string): string | null =>
  /^document-pages\/(.+)-(?:\d+-\d+|manifest)$/.exec(key)?.[1] ?? null;

async function* once(bytes: Uint8Array): AsyncIterable<Buffer> {
  yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The manifest of a stored PDF's images, or null while there is none. */
export async function readPageImageManifest(
  { services }: Pick<OrgContext, "services">,
  pdfKey: string,
): Promise<PageImageManifest | null> {
  const bytes = await services.storage.get(pageManifestKey(pdfKey));
  return bytes ? (JSON.parse(bytes.toString("utf8")) as PageImageManifest) : null;
}

/** One image's bytes, or null (no such page or width, or not drawn). */
export async function readPageImage(
  { services }: Pick<OrgContext, "services">,
  pdfKey: string,
  page: number,
  width: number,
): Promise<Buffer | null> {
  return services.storage.get(pageImageKey(pdfKey, page, width));
}

/**
 * Draws every page of the stored PDF `pdfKey` in the PDF worker and stores the images and the
 * manifest (last, so a manifest always names images that exist). A PDF that cannot be drawn gets
 * a manifest saying so (the page keeps pdf.js); a limit hit is final too, retrying would hit it again.
 * Does nothing when the manifest exists.
 */
export async function renderPageImages(ctx: Pick<OrgContext, "services">, pdfKey: string): Promise<PageImageManifest> {
  const existing = await readPageImageManifest(ctx, pdfKey);
  if (existing) return existing;
  const { services } = ctx;
  const bytes = await services.storage.get(pdfKey);
  if (!bytes) throw new Error(`stored PDF ${pdfKey} is missing`);
  const widths = [...PAGE_IMAGE_WIDTHS];
  const manifest: PageImageManifest = { widths, pages: [] };
  const written: string[] = [];
  let pageCount = 1;
  try {
    for (let first = 1; first <= pageCount; first += PAGES_PER_TASK) {
      const pages = Array.from({ length: PAGES_PER_TASK }, (_, index) => first + index);
      const outcome = await runPdfTask(services.config.pdfWorker, "renderPages", { bytes, pages, widths });
      if (!outcome.ok) {
        manifest.unavailable = outcome.reason;
        break;
      }
      pageCount = outcome.pageCount;
      if (pageCount > MAX_IMAGE_PAGES) {
        manifest.unavailable = "too_many_pages";
        break;
      }
      for (const page of outcome.pages) manifest.pages.push(await storePage(services, pdfKey, page, written));
    }
  } catch (error) {
    if (!(error instanceof PdfLimitError)) throw error;
    services.log.warn(
      { limit: error.limit, err: error.message },
      "the page images of a PDF were refused by the PDF worker",
    );
    manifest.unavailable = `limit_${error.limit}`;
  }
  if (manifest.unavailable) {
    // No half-drawn documents: the page shows all pages as images or none.
    await Promise.all(written.map((key) => services.storage.delete(key).catch(() => {})));
    manifest.pages = [];
  }
  await services.storage.putAs(pageManifestKey(pdfKey), once(Buffer.from(JSON.stringify(manifest))));
  return manifest;
}

async function storePage(services: Services, pdfKey: string, page: RenderedPage, written: string[]) {
  for (const image of page.images) {
    const key = pageImageKey(pdfKey, page.number, image.width);
    await services.storage.putAs(key, once(image.webp));
    written.push(key);
  }
  return {
    number: page.number,
    width: page.width,
    height: page.height,
    rotate: page.rotate,
    text: page.text,
    images: page.images.map(({ width, height }) => ({ width, height })),
  };
}

/** Removes a stored PDF's images and manifest (with the PDF, when a document is deleted). */
export async function deletePageImages(ctx: Pick<OrgContext, "services">, pdfKey: string): Promise<void> {
  const { services } = ctx;
  const manifest = await readPageImageManifest(ctx, pdfKey).catch(() => null);
  const keys = (manifest?.pages ?? []).flatMap((page) =>
    manifest!.widths.map((width) => pageImageKey(pdfKey, page.number, width)),
  );
  await Promise.all([...keys, pageManifestKey(pdfKey)].map((key) => services.storage.delete(key).catch(() => {})));
}

/**
 * Queues the drawing of a stored PDF's pages, in the transaction that creates its version (A6,
 * the staff upload) or when a signing page finds none (versions from before this existed). The
 * version is usable at once; the signing page uses pdf.js until the images are there.
 */
export async function queuePageImages(tx: OrgContext, pdfKey: string): Promise<void> {
  if (!tx.services.config.pageImages) return;
  await enqueueJob(tx.scope, {
    kind: PAGE_IMAGES_JOB,
    payload: { pdfKey },
    maxAttempts: PAGE_IMAGES_MAX_ATTEMPTS,
  });
  await afterCommit(tx, "wake the job runner", () => tx.services.jobs?.wake());
}

/** `document.page_images`: draws the pages (a no-op once the manifest exists, so repeats are harmless). */
export const pageImagesJobHandler: JobHandler = {
  async run(job, services) {
    const { pdfKey } = job.payload as { pdfKey: string };
    await renderPageImages({ services }, pdfKey);
  },
  retryDelayMs: (attempt) => 60_000 * attempt,
  // Many pages take many worker tasks; the lease outlasts them.
  leaseSeconds: 600,
};
