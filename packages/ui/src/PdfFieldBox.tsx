"use client";

import { useEffect, useRef, useState } from "react";
import { cx } from "./cx";
import type { fieldBox, PdfShownField } from "./pdf-geometry";
import styles from "./PdfPages.module.css";

const percent = (fraction: number) => `${(fraction * 100).toFixed(4)}%`;

/**
 * A field to sign, outlined over its page (the PDF viewer's canvas or a page image): placed as
 * fractions of the page through CSS custom properties, so it lines up at any displayed size.
 */
export function FieldBox({
  box,
  label,
  signed,
}: {
  box: ReturnType<typeof fieldBox>;
  label: string;
  /** Another signer's signature, already made: shown in the field instead of the outline. */
  signed?: PdfShownField["signed"];
}) {
  const ref = useRef<HTMLDivElement>(null);
  // The CSP allows no inline style attribute, so the place is set once the script runs; until then
  // (a page drawn from the server's HTML) the box stays hidden rather than sit in the corner.
  const [placed, setPlaced] = useState(false);
  useEffect(() => {
    const style = ref.current?.style;
    if (!style) return;
    style.setProperty("--cs-field-left", percent(box.left));
    style.setProperty("--cs-field-top", percent(box.top));
    style.setProperty("--cs-field-width", percent(box.width));
    style.setProperty("--cs-field-height", percent(box.height));
    setPlaced(true);
  }, [box.left, box.top, box.width, box.height]);
  if (signed) {
    return (
      <div
        ref={ref}
        className={cx(styles.field, styles.signedField)}
        data-testid="pdf-signed-field"
        data-placed={placed || undefined}
      >
        {"image" in signed ? (
          // A data URL of the signer's drawing (the CSP allows data: images).
          <img className={styles.signedImage} src={signed.image} alt={signed.alt} />
        ) : (
          <span className={styles.signedText} role="img" aria-label={signed.alt}>
            {signed.text}
          </span>
        )}
        <span className={cx(styles.fieldLabel, styles.signedLabel)} aria-hidden="true">
          {label}
        </span>
      </div>
    );
  }
  return (
    <div ref={ref} className={styles.field} data-testid="pdf-field" data-placed={placed || undefined}>
      <span className={styles.fieldLabel}>{label}</span>
    </div>
  );
}
