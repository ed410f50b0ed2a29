"use client";

import SignaturePadEngine, { type PointGroup } from "signature_pad";
import { useEffect, useId, useImperativeHandle, useRef, useState, type ReactNode, type Ref } from "react";
import { Button } from "./Button";
import { cx } from "./cx";
import styles from "./SignaturePad.module.css";

export interface SignaturePadHandle {
  isEmpty(): boolean;
  clear(): void;
  /**
   * The ink as a PNG data URL, cropped to the strokes (plus a small margin) on a transparent
   * background, so that whoever places it into a field gets the signature and not the empty
   * pad around it. Null when nothing is drawn.
   */
  toPng(): string | null;
}

export interface SignaturePadLabels {
  /** Accessible name of the drawing area, e.g. "Signature: draw with your finger or the mouse". */
  canvas: string;
  clear: string;
  undo: string;
  /** Announced (aria-live) after a stroke and after clearing. */
  drawn: string;
  cleared: string;
}

export interface SignaturePadProps {
  labels: SignaturePadLabels;
  /** Visible instruction under the pad (also the canvas's description). */
  hint?: ReactNode;
  /** Called with `true` once there is ink and `false` when the pad is empty again. */
  onChange?(hasInk: boolean): void;
  disabled?: boolean;
  /** Ink colour; dark by default so the stamped signature stays legible. */
  penColor?: string;
  className?: string;
  ref?: Ref<SignaturePadHandle>;
}

/** Largest side of the exported PNG; the server accepts up to 4000 px and 1 MB. */
const MAX_EXPORT_SIDE = 1600;

function scalePoints(groups: PointGroup[], factor: number): PointGroup[] {
  if (factor === 1) return groups;
  return groups.map((group) => ({
    ...group,
    points: group.points.map((p) => ({ ...p, x: p.x * factor, y: p.y * factor })),
  }));
}

/** Crops a canvas to the bounding box of its non-transparent pixels. */
function cropToInk(canvas: HTMLCanvasElement, margin: number): string | null {
  const context = canvas.getContext("2d");
  if (!context || canvas.width === 0 || canvas.height === 0) return null;
  const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
  let top = height;
  let left = width;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4 + 3]! > 0) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  if (right < 0) return null;
  left = Math.max(0, left - margin);
  top = Math.max(0, top - margin);
  right = Math.min(width - 1, right + margin);
  bottom = Math.min(height - 1, bottom + margin);
  const cropWidth = right - left + 1;
  const cropHeight = bottom - top + 1;
  const scale = Math.min(1, MAX_EXPORT_SIDE / Math.max(cropWidth, cropHeight));
  const out = document.createElement("canvas");
  out.width = Math.max(1, Math.round(cropWidth * scale));
  out.height = Math.max(1, Math.round(cropHeight * scale));
  out.getContext("2d")?.drawImage(canvas, left, top, cropWidth, cropHeight, 0, 0, out.width, out.height);
  return out.toDataURL("image/png");
}

/**
 * A signature drawn with a finger, pen or mouse (signature_pad). The canvas is sized for the
 * device pixel ratio and keeps the strokes when the pad is resized (rotation, window size).
 * Drawing is not possible without a pointer, so pages using this must offer a typed name as
 * the keyboard and screen-reader path; the canvas carries an accessible name and description.
 */
export function SignaturePad({
  labels,
  hint,
  onChange,
  disabled = false,
  penColor = "#10213f",
  className,
  ref,
}: SignaturePadProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const padRef = useRef<SignaturePadEngine | null>(null);
  // Read by the pad's listeners, which live as long as the pad (created once).
  const onChangeRef = useRef(onChange);
  const labelsRef = useRef(labels);
  const penColorRef = useRef(penColor);
  const [hasInk, setHasInk] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const hintId = useId();

  useEffect(() => {
    onChangeRef.current = onChange;
    labelsRef.current = labels;
  }, [onChange, labels]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const pad = new SignaturePadEngine(canvas, {
      penColor: penColorRef.current,
      minWidth: 0.8,
      maxWidth: 2.8,
      backgroundColor: "rgba(0,0,0,0)",
    });
    padRef.current = pad;
    let cssWidth = 0;
    let cssHeight = 0;

    const report = () => {
      const inked = !pad.isEmpty();
      setHasInk(inked);
      onChangeRef.current?.(inked);
    };

    // Backing store = CSS size × devicePixelRatio, so strokes are sharp on phones.
    const resize = () => {
      const rect = canvas.getBoundingClientRect();
      if (rect.width === 0 || (rect.width === cssWidth && rect.height === cssHeight)) return;
      const strokes = cssWidth ? scalePoints(pad.toData(), rect.width / cssWidth) : pad.toData();
      const ratio = Math.max(window.devicePixelRatio || 1, 1);
      canvas.width = Math.round(rect.width * ratio);
      canvas.height = Math.round(rect.height * ratio);
      canvas.getContext("2d")?.scale(ratio, ratio);
      cssWidth = rect.width;
      cssHeight = rect.height;
      pad.clear();
      if (strokes.length > 0) pad.fromData(strokes);
    };
    resize();
    const observer = new ResizeObserver(resize);
    observer.observe(canvas);

    const onEndStroke = () => {
      report();
      setAnnouncement(labelsRef.current.drawn);
    };
    pad.addEventListener("endStroke", onEndStroke);
    return () => {
      observer.disconnect();
      pad.removeEventListener("endStroke", onEndStroke);
      pad.off();
      padRef.current = null;
    };
  }, []);

  // A new colour applies to the next strokes without losing the ink already there.
  useEffect(() => {
    penColorRef.current = penColor;
    if (padRef.current) padRef.current.penColor = penColor;
  }, [penColor]);

  useEffect(() => {
    const pad = padRef.current;
    if (!pad) return;
    if (disabled) pad.off();
    else pad.on();
  }, [disabled]);

  function clear() {
    const pad = padRef.current;
    if (!pad) return;
    pad.clear();
    setHasInk(false);
    onChangeRef.current?.(false);
    setAnnouncement(labels.cleared);
  }

  function undo() {
    const pad = padRef.current;
    if (!pad) return;
    const strokes = pad.toData();
    strokes.pop();
    pad.clear();
    if (strokes.length > 0) pad.fromData(strokes);
    const inked = !pad.isEmpty();
    setHasInk(inked);
    onChangeRef.current?.(inked);
    setAnnouncement(inked ? labels.drawn : labels.cleared);
  }

  useImperativeHandle(ref, () => ({
    isEmpty: () => padRef.current?.isEmpty() ?? true,
    clear,
    toPng: () => {
      const canvas = canvasRef.current;
      if (!canvas || !padRef.current || padRef.current.isEmpty()) return null;
      return cropToInk(canvas, Math.round(8 * Math.max(window.devicePixelRatio || 1, 1)));
    },
  }));

  return (
    <div className={cx(styles.root, className)} data-disabled={disabled || undefined}>
      <div className={styles.surface}>
        <canvas
          ref={canvasRef}
          className={styles.canvas}
          role="img"
          aria-label={labels.canvas}
          aria-describedby={hint ? hintId : undefined}
          data-testid="signature-canvas"
          data-has-ink={hasInk || undefined}
        />
        <span className={styles.baseline} aria-hidden="true">
          ×
        </span>
      </div>
      <div className={styles.toolbar}>
        {hint ? (
          <p id={hintId} className={cx("cs-hint", styles.hint)}>
            {hint}
          </p>
        ) : null}
        <div className={styles.actions}>
          <Button size="small" variant="ghost" onClick={undo} disabled={disabled || !hasInk}>
            {labels.undo}
          </Button>
          <Button size="small" onClick={clear} disabled={disabled || !hasInk}>
            {labels.clear}
          </Button>
        </div>
      </div>
      <p className="cs-visually-hidden" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}
