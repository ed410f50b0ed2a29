"use client";

import QRCode from "qrcode";
import { useMemo } from "react";
import styles from "./signature-requests.module.css";

/** Modules of white border around the code: the QR standard asks for four. */
const QUIET_ZONE = 4;

/** The dark modules of a QR code as one SVG path (each module a 1×1 square). */
export function qrPath(text: string): { size: number; path: string } {
  // Level M survives a smudged screen or a glare and keeps a long link scannable at desk distance.
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  let path = "";
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.get(row, col)) path += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
    }
  }
  return { size: modules.size + QUIET_ZONE * 2, path };
}

/**
 * A QR code of `value`, drawn in the browser as SVG (nothing leaves the page, and no inline
 * style is needed under the CSP). Dark on white whatever the theme: scanners need the contrast.
 */
export function QrCode({ value, label }: { value: string; label: string }) {
  const { size, path } = useMemo(() => qrPath(value), [value]);
  return (
    <svg
      className={styles.qr}
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
      data-testid="signing-qr"
    >
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}
