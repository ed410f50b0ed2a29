"use client";

import SignaturePadEngine, { type PointGroup } from "signature_pad";
import { useEffect, useRef, useState } from "react";

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

interface SignaturePadOptions {
  /** What is announced after a stroke or an undo that leaves ink, and after clearing. */
  labels: { drawn: string; cleared: string };
  onChange?(hasInk: boolean): void;
  disabled: boolean;
  penColor: string;
}

/**
 * The drawing engine behind `SignaturePad`, on the canvas `canvasRef` is attached to: created
 * once, its backing store follows the canvas's size (keeping the strokes), and every stroke, undo
 * and clear reports whether there is ink and what to announce.
 */
export function useSignaturePad({ labels, onChange, disabled, penColor }: SignaturePadOptions) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const padRef = useRef<SignaturePadEngine | null>(null);
  // Read by the pad's listeners, which live as long as the pad (created once).
  const onChangeRef = useRef(onChange);
  const labelsRef = useRef(labels);
  const penColorRef = useRef(penColor);
  const [hasInk, setHasInk] = useState(false);
  const [announcement, setAnnouncement] = useState("");

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
    const stopResizing = keepSizedToCanvas(pad, canvas);
    const onEndStroke = () => {
      const inked = !pad.isEmpty();
      setHasInk(inked);
      onChangeRef.current?.(inked);
      setAnnouncement(labelsRef.current.drawn);
    };
    pad.addEventListener("endStroke", onEndStroke);
    return () => {
      stopResizing();
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

  /** Clears the pad and draws `strokes` again (null: clear; all but the last: undo); says what is left. */
  function redraw(strokes: PointGroup[] | null) {
    const pad = padRef.current;
    if (!pad) return;
    pad.clear();
    if (strokes && strokes.length > 0) pad.fromData(strokes);
    const inked = !pad.isEmpty();
    setHasInk(inked);
    onChangeRef.current?.(inked);
    setAnnouncement(inked ? labels.drawn : labels.cleared);
  }

  return {
    canvasRef,
    hasInk,
    /** Said (aria-live) after a stroke, an undo and a clear. */
    announcement,
    clear: () => redraw(null),
    undo: () => redraw(padRef.current?.toData().slice(0, -1) ?? null),
    isEmpty: () => padRef.current?.isEmpty() ?? true,
    toPng: () => inkPng(canvasRef.current, padRef.current),
  };
}

/** The ink as a cropped PNG data URL with a margin of 8 CSS pixels; null when nothing is drawn. */
function inkPng(canvas: HTMLCanvasElement | null, pad: SignaturePadEngine | null): string | null {
  if (!canvas || !pad || pad.isEmpty()) return null;
  return cropToInk(canvas, Math.round(8 * Math.max(window.devicePixelRatio || 1, 1)));
}

/**
 * Backing store = CSS size × devicePixelRatio, so strokes are sharp on phones; a resize (rotation,
 * window size) scales the strokes with it. Returns what stops following the size.
 */
function keepSizedToCanvas(pad: SignaturePadEngine, canvas: HTMLCanvasElement): () => void {
  let cssWidth = 0;
  let cssHeight = 0;
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
  return () => observer.disconnect();
}
