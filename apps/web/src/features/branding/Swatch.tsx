"use client";

import { useEffect, useRef } from "react";
import { normalizeHex } from "../patient/branding";
import styles from "./branding.module.css";

/** A colour chip with its hex value; the colour is set through the CSSOM (the CSP allows no inline style). */
export function Swatch({ color }: { color: string | null }) {
  const ref = useRef<HTMLSpanElement>(null);
  const hex = normalizeHex(color);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    if (hex) element.style.setProperty("--swatch", hex);
    else element.style.removeProperty("--swatch");
  }, [hex]);
  if (!hex) return <span className="cs-hint">–</span>;
  return (
    <span className={styles.swatchRow}>
      <span ref={ref} className={styles.swatch} aria-hidden="true" />
      <code className="cs-mono">{hex}</code>
    </span>
  );
}
