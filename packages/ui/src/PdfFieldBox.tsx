"use client";

import { useEffect, useRef } from "react";
import type { fieldBox } from "./pdf-geometry";
import styles from "./PdfPages.module.css";

const percent = (fraction: number) => `${(fraction * 100).toFixed(4)}%`;

/**
 * A field to sign, outlined over its page (the PDF viewer's canvas or a page image): placed as
 * fractions of the page through CSS custom properties, so it lines up at any displayed size.
 */
export function FieldBox({ box, label }: { box: ReturnType<typeof fieldBox>; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const style = ref.current?.style;
    if (!style) return;
    style.setProperty("--cs-field-left", percent(box.left));
    style.setProperty("--cs-field-top", percent(box.top));
    style.setProperty("--cs-field-width", percent(box.width));
    style.setProperty("--cs-field-height", percent(box.height));
  }, [box.left, box.top, box.width, box.height]);
  return (
    <div ref={ref} className={styles.field} data-testid="pdf-field">
      <span className={styles.fieldLabel}>{label}</span>
    </div>
  );
}
