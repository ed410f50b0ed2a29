"use client";

import { useId, useImperativeHandle, type ReactNode, type Ref } from "react";
import { Button } from "./Button";
import { cx } from "./cx";
import styles from "./SignaturePad.module.css";
import { useSignaturePad } from "./useSignaturePad";

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
  const pad = useSignaturePad({ labels, onChange, disabled, penColor });
  const { canvasRef, hasInk, announcement, clear, undo } = pad;
  const hintId = useId();

  useImperativeHandle(ref, () => ({ isEmpty: pad.isEmpty, clear, toPng: pad.toPng }));

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
