"use client";

import { useEffect, useLayoutEffect, useRef, type RefObject } from "react";

/**
 * Reading zoom of the signing page's document: 1 is the page at the width of the screen (on a
 * phone, body text of an A4 page at about 5–6 px), 3 makes it about 16 px.
 */
export const MIN_ZOOM = 1;
export const MAX_ZOOM = 3;
const STEPS = [1, 1.5, 2, 2.5, 3];

export function clampZoom(zoom: number): number {
  if (!Number.isFinite(zoom)) return MIN_ZOOM;
  return Math.round(Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom)) * 100) / 100;
}

/** The next step up or down from any zoom (a pinch leaves it between steps). */
export function stepZoom(zoom: number, direction: 1 | -1): number {
  if (direction > 0) return STEPS.find((step) => step > zoom + 0.01) ?? MAX_ZOOM;
  return [...STEPS].reverse().find((step) => step < zoom - 0.01) ?? MIN_ZOOM;
}

/** The scroll offset that keeps the content point under `anchor` (px from the viewer's edge) in place. */
export function anchoredScroll(scroll: number, anchor: number, ratio: number): number {
  return Math.max(0, (scroll + anchor) * ratio - anchor);
}

interface Anchor {
  /** Pixels from the viewer's left and top edges (its visible box). */
  x: number;
  y: number;
}

/**
 * Sets the zoom on `content` (its width, as `--cs-zoom`) and keeps the point the patient zoomed
 * around in place: the pinch centre, or the middle of the viewer for the buttons. Two-finger
 * pinches inside `viewer` scale the content with a transform while the fingers move (cheap) and
 * commit the zoom when they lift (the pages then redraw sharp at their new width). One finger
 * still scrolls; `touch-action: pan-x pan-y` on the viewer keeps the browser's own page zoom out
 * of this area. `mounted` says that both elements are in the page (the viewer is not while the
 * PDF cannot be shown), so the listeners attach to it then.
 */
export function useDocumentZoom(
  viewer: RefObject<HTMLElement | null>,
  content: RefObject<HTMLElement | null>,
  zoom: number,
  setZoom: (zoom: number) => void,
  mounted: boolean,
) {
  const previous = useRef(zoom);
  const anchor = useRef<Anchor | null>(null);
  const current = useRef({ zoom, setZoom });
  useEffect(() => {
    current.current = { zoom, setZoom };
  }, [zoom, setZoom]);

  useLayoutEffect(() => {
    const box = viewer.current;
    content.current?.style.setProperty("--cs-zoom", String(zoom));
    const ratio = zoom / previous.current;
    previous.current = zoom;
    if (!box || ratio === 1) return;
    const rect = box.getBoundingClientRect();
    // The buttons zoom around the middle of what the viewer shows on the screen.
    const at = anchor.current ?? {
      x: box.clientWidth / 2,
      y: Math.min(Math.max(window.innerHeight / 2 - rect.top, 0), rect.height),
    };
    anchor.current = null;
    box.scrollLeft = anchoredScroll(box.scrollLeft, at.x, ratio);
    // Vertically the page itself scrolls: what lay above the anchor inside the viewer grew.
    window.scrollBy(0, at.y * (ratio - 1));
  }, [zoom, viewer, content, mounted]);

  useEffect(() => {
    const box = viewer.current;
    if (!box) return;
    let pinch: { distance: number; zoom: number; anchor: Anchor; scale: number } | null = null;

    const distance = (touches: TouchList) =>
      Math.hypot(touches[0]!.clientX - touches[1]!.clientX, touches[0]!.clientY - touches[1]!.clientY);
    const showScale = (scale: number, at: Anchor | null) => {
      const style = content.current?.style;
      if (!style) return;
      if (scale === 1 || !at) {
        style.removeProperty("--cs-pinch");
        return;
      }
      style.setProperty("--cs-pinch", String(scale));
      style.setProperty("--cs-pinch-origin", `${at.x + box.scrollLeft}px ${at.y}px`);
    };

    const onStart = (event: TouchEvent) => {
      if (event.touches.length !== 2) return;
      const rect = box.getBoundingClientRect();
      const x = (event.touches[0]!.clientX + event.touches[1]!.clientX) / 2 - rect.left;
      const y = (event.touches[0]!.clientY + event.touches[1]!.clientY) / 2 - rect.top;
      pinch = { distance: distance(event.touches), zoom: current.current.zoom, anchor: { x, y }, scale: 1 };
    };
    const onMove = (event: TouchEvent) => {
      if (!pinch || event.touches.length !== 2) return;
      // Two fingers here zoom the document, not scroll or zoom the page.
      if (event.cancelable) event.preventDefault();
      const next = clampZoom((pinch.zoom * distance(event.touches)) / pinch.distance);
      pinch.scale = next / pinch.zoom;
      showScale(pinch.scale, pinch.anchor);
    };
    const onEnd = (event: TouchEvent) => {
      if (!pinch || event.touches.length >= 2) return;
      const done = pinch;
      pinch = null;
      showScale(1, null);
      const next = clampZoom(done.zoom * done.scale);
      if (next !== current.current.zoom) {
        anchor.current = done.anchor;
        current.current.setZoom(next);
      }
    };

    box.addEventListener("touchstart", onStart, { passive: true });
    box.addEventListener("touchmove", onMove, { passive: false });
    box.addEventListener("touchend", onEnd, { passive: true });
    box.addEventListener("touchcancel", onEnd, { passive: true });
    return () => {
      box.removeEventListener("touchstart", onStart);
      box.removeEventListener("touchmove", onMove);
      box.removeEventListener("touchend", onEnd);
      box.removeEventListener("touchcancel", onEnd);
    };
  }, [viewer, content, mounted]);
}
