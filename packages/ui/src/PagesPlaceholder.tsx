"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { cx } from "./cx";
import styles from "./PdfPages.module.css";

/** A page's size in PDF points (the stored `pageSizes`). */
export interface PageSize {
  width: number;
  height: number;
}

export interface PagesPlaceholderProps {
  /**
   * The pages' sizes when known: each page gets its blank sheet at its size, so nothing below the
   * document (the signature pad) moves when the pages arrive. Unknown: one A4 sheet.
   */
  pageSizes?: readonly PageSize[] | null;
  /** What the first sheet says meanwhile, e.g. "Loading the document…". */
  loading: string;
  /** The caption under each sheet, as the drawn pages have it, e.g. "Page 1 of 3". */
  page(number: number, count: number): string;
  className?: string;
}

/**
 * Stands in for a document's pages while they load (pdf.js, or the PDF itself): the same sheets
 * with the same captions as `PdfPages` and `PageImages` draw, so the pages replace it in place.
 */
export function PagesPlaceholder({ pageSizes, loading, page, className }: PagesPlaceholderProps) {
  const status = (onSheet: boolean) => (
    <p role="status" className={cx(styles.placeholderText, onSheet && styles.sheetStatus)}>
      <span className="cs-spinner" aria-hidden="true" />
      {loading}
    </p>
  );
  if (!pageSizes?.length) {
    return (
      <div className={cx(styles.root, className)} aria-busy="true">
        <div className={styles.placeholder}>{status(false)}</div>
      </div>
    );
  }
  return (
    <div className={cx(styles.root, className)} aria-busy="true">
      {pageSizes.map((size, index) => (
        <BlankPage key={index} size={size} caption={page(index + 1, pageSizes.length)}>
          {index === 0 ? status(true) : null}
        </BlankPage>
      ))}
    </div>
  );
}

function BlankPage({ size, caption, children }: { size: PageSize; caption: string; children: ReactNode }) {
  const frameRef = useRef<HTMLDivElement>(null);
  // The size is the page's MediaBox: a page turned by /Rotate shows the other way round, the one
  // case where the drawn page still differs from its sheet.
  useEffect(() => {
    frameRef.current?.style.setProperty("--cs-pdf-aspect", `${size.width} / ${size.height}`);
  }, [size.width, size.height]);
  return (
    <div className={styles.page} data-placeholder-page="">
      <div ref={frameRef} className={styles.frame}>
        {children}
      </div>
      <span className={styles.caption} aria-hidden="true">
        {caption}
      </span>
    </div>
  );
}
