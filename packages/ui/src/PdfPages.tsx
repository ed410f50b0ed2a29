"use client";

import type { PDFPageProxy } from "pdfjs-dist";
import { useEffect, useRef, useState, type ReactNode, type RefObject } from "react";
import { cx } from "./cx";
import { fieldBox, type PdfFieldRect, type PdfShownField } from "./pdf-geometry";
import { FieldBox } from "./PdfFieldBox";
import { useNearViewport } from "./near-viewport";
import { PagesPlaceholder, type PageSize } from "./PagesPlaceholder";
import styles from "./PdfPages.module.css";

export { fieldBox, type PdfFieldRect, type PdfShownField };

export interface PdfPagesLabels {
  /** Shown while the PDF loads. */
  loading: string;
  /** Shown when the PDF cannot be shown. */
  failed: string;
  /** Accessible name of one page, e.g. "Page 1 of 3". */
  page(number: number, count: number): string;
  /** Text inside a highlighted field, e.g. "Sign here". */
  field: string;
}

export interface PdfPagesProps {
  /** The PDF file. Copied before it is handed to pdf.js (which takes ownership of its input). */
  data: Uint8Array;
  /** Highlighted as outlined rectangles on their pages (or, signed, with the signature in them). */
  fields?: readonly PdfShownField[];
  labels: PdfPagesLabels;
  /** The pages' sizes when known before pdf.js has read the file: their sheets are kept meanwhile. */
  pageSizes?: readonly PageSize[] | null;
  /** pdf.js worker script; defaults to the copy the app's bundler emits from pdfjs-dist. */
  workerSrc?: string;
  /**
   * Base URL (with trailing slash) under which pdfjs-dist's `standard_fonts/`, `cmaps/`, `wasm/`
   * and `iccs/` folders are served from the app's own origin. Without it, PDFs that rely on the
   * 14 standard fonts render with system fonts.
   */
  assetsUrl?: string;
  /**
   * Drawn over each page, inside a box exactly the page's size (e.g. the field editor's handles).
   * `width`/`height` are the unrotated page's size in points, as field rectangles use them.
   */
  pageOverlay?(page: PdfPageGeometry): ReactNode;
  onLoad?(info: { pageCount: number }): void;
  onError?(error: unknown): void;
  className?: string;
}

/** One page's number (from 1), unrotated size in PDF points and /Rotate. */
export interface PdfPageGeometry {
  number: number;
  count: number;
  width: number;
  height: number;
  rotate: number;
}

type Loaded = { status: "loading" } | { status: "failed" } | { status: "ready"; pages: PDFPageProxy[] };

/** Canvases larger than this (per side, in device pixels) cost memory without adding detail. */
const MAX_CANVAS_SIDE = 4096;

/** The worker from pdfjs-dist, emitted by the bundler as a file of this origin (CSP, offline). */
function bundledWorkerSrc(): string {
  return new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();
}

/**
 * A PDF shown page by page with pdf.js: one canvas per page, drawn when the page comes near the
 * viewport and redrawn for its width (sharp on high-density screens), fields outlined on top.
 * Each page's text is also put into the page as visually hidden text, so screen readers can read
 * the document. Geometry is set through CSS custom properties with `style.setProperty` (no
 * inline style attributes, which a strict Content-Security-Policy refuses).
 */
export function PdfPages({
  data,
  fields = [],
  labels,
  pageSizes,
  workerSrc,
  assetsUrl,
  pageOverlay,
  onLoad,
  onError,
  className,
}: PdfPagesProps) {
  const [loaded, setLoaded] = useState<Loaded>({ status: "loading" });
  const callbacks = useRef({ onLoad, onError });

  useEffect(() => {
    callbacks.current = { onLoad, onError };
  }, [onLoad, onError]);

  useEffect(() => {
    let cancelled = false;
    let destroy: (() => Promise<void>) | null = null;
    setLoaded({ status: "loading" });
    (async () => {
      const pdfjs = await import("pdfjs-dist");
      if (!pdfjs.GlobalWorkerOptions.workerPort) pdfjs.GlobalWorkerOptions.workerSrc = workerSrc ?? bundledWorkerSrc();
      const task = pdfjs.getDocument({
        data: data.slice(),
        ...(assetsUrl && {
          standardFontDataUrl: `${assetsUrl}standard_fonts/`,
          cMapUrl: `${assetsUrl}cmaps/`,
          wasmUrl: `${assetsUrl}wasm/`,
          iccUrl: `${assetsUrl}iccs/`,
        }),
        enableXfa: false,
      });
      destroy = () => task.destroy();
      const doc = await task.promise;
      const pages: PDFPageProxy[] = [];
      for (let number = 1; number <= doc.numPages; number++) pages.push(await doc.getPage(number));
      if (cancelled) return;
      setLoaded({ status: "ready", pages });
      callbacks.current.onLoad?.({ pageCount: doc.numPages });
    })().catch((error: unknown) => {
      if (cancelled) return;
      setLoaded({ status: "failed" });
      callbacks.current.onError?.(error);
    });
    return () => {
      cancelled = true;
      void destroy?.();
    };
  }, [data, workerSrc, assetsUrl]);

  if (loaded.status === "loading")
    return <PagesPlaceholder pageSizes={pageSizes} loading={labels.loading} page={labels.page} className={className} />;
  if (loaded.status === "failed") {
    return (
      <div className={cx(styles.root, className)}>
        <div className={styles.placeholder}>
          <p role="alert" className={styles.placeholderText}>
            {labels.failed}
          </p>
        </div>
      </div>
    );
  }

  return (
    <div className={cx(styles.root, className)}>
      {loaded.pages.map((page, index) => (
        <PdfPage
          key={index}
          page={page}
          count={loaded.pages.length}
          fields={fields.filter((field) => field.page === index + 1)}
          labels={labels}
          overlay={pageOverlay}
        />
      ))}
    </div>
  );
}

interface PdfPageProps {
  page: PDFPageProxy;
  count: number;
  fields: PdfShownField[];
  labels: PdfPagesLabels;
  overlay?: PdfPagesProps["pageOverlay"];
}

function PdfPage({ page, count, fields, labels, overlay }: PdfPageProps) {
  // Draw only pages near the viewport; once drawn, a page stays drawn.
  const { ref: frameRef, near } = useNearViewport<HTMLDivElement>("400px 0px");
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const number = page.pageNumber;
  const base = page.getViewport({ scale: 1 });

  // The frame keeps the page's proportions before and after drawing (no layout jumps).
  useEffect(() => {
    frameRef.current?.style.setProperty("--cs-pdf-aspect", `${base.width} / ${base.height}`);
  }, [frameRef, base.width, base.height]);

  const width = useFrameWidth(frameRef);
  const rendered = usePageCanvas(canvasRef, page, near, width);
  const text = usePageText(page, near);
  const pageWidth = page.view[2]! - page.view[0]!;
  const pageHeight = page.view[3]! - page.view[1]!;

  const name = labels.page(number, count);
  return (
    <figure className={styles.page} aria-label={name} data-page={number} data-rendered={rendered || undefined}>
      <div ref={frameRef} className={styles.frame}>
        <canvas ref={canvasRef} className={styles.canvas} aria-hidden="true" />
        {!rendered ? <span className={cx("cs-spinner", styles.pageSpinner)} aria-hidden="true" /> : null}
        {fields.map((field, index) => (
          <FieldBox
            key={index}
            box={fieldBox(field, pageWidth, pageHeight, page.rotate)}
            label={field.label ?? labels.field}
            signed={field.signed}
          />
        ))}
        {overlay ? overlay({ number, count, width: pageWidth, height: pageHeight, rotate: page.rotate }) : null}
      </div>
      <figcaption className={styles.caption} aria-hidden="true">
        {name}
      </figcaption>
      {text ? <div className="cs-visually-hidden">{text}</div> : null}
    </figure>
  );
}

/** The frame's width in whole CSS pixels, as it changes (0 until measured). */
function useFrameWidth(frameRef: RefObject<HTMLDivElement | null>) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const measure = () => setWidth(Math.round(frame.clientWidth));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(frame);
    return () => observer.disconnect();
  }, [frameRef]);
  return width;
}

/**
 * Draws the page on the canvas once it is `near`, for the frame's width and sharp for the
 * screen's density; a new width redraws it. True once it has been drawn.
 */
function usePageCanvas(
  canvasRef: RefObject<HTMLCanvasElement | null>,
  page: PDFPageProxy,
  near: boolean,
  width: number,
) {
  const [rendered, setRendered] = useState(false);
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!near || !canvas || width === 0) return;
    const base = page.getViewport({ scale: 1 });
    const ratio = Math.min(Math.max(window.devicePixelRatio || 1, 1), 3);
    const scale = Math.min((width * ratio) / base.width, MAX_CANVAS_SIDE / Math.max(base.width, base.height));
    const viewport = page.getViewport({ scale });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    const task = page.render({ canvas, viewport });
    let active = true;
    task.promise.then(
      () => active && setRendered(true),
      () => {
        // Cancelled because the width changed or the page went away: the next render follows.
      },
    );
    return () => {
      active = false;
      task.cancel();
    };
  }, [canvasRef, near, width, page]);
  return rendered;
}

/** The page's text (for screen readers), read once `near`. */
function usePageText(page: PDFPageProxy, near: boolean) {
  const [text, setText] = useState("");
  useEffect(() => {
    if (!near) return;
    let active = true;
    page
      .getTextContent()
      .then((content) => {
        if (!active) return;
        const words = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : " ") : ""));
        setText(
          words
            .join("")
            .replace(/[ \t]+/g, " ")
            .trim(),
        );
      })
      .catch(() => {});
    return () => {
      active = false;
    };
  }, [near, page]);
  return text;
}
