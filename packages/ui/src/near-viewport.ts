"use client";

import { useEffect, useRef, useState } from "react";

/**
 * True once the element comes within `margin` of the viewport, and from then on. Heavy parts
 * (pdf.js, the signature pad on the signing page and in the form renderer) load through this: a
 * screen that never shows them (an expired link, the confirmation) never downloads them.
 */
export function useNearViewport<T extends Element>(margin = "25% 0px") {
  const ref = useRef<T>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    if (typeof IntersectionObserver === "undefined") return setNear(true);
    const observer = new IntersectionObserver(
      (entries) => entries.some((entry) => entry.isIntersecting) && setNear(true),
      { rootMargin: margin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [near, margin]);
  return { ref, near };
}

/**
 * True once the browser has been idle after the first paint (at the latest after `fallbackMs`
 * where `requestIdleCallback` is missing, as in Safari): for parts that must be ready by the
 * time a patient scrolls to them, but not hold up the page.
 */
export function useBrowserIdle(fallbackMs = 1500) {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (typeof window.requestIdleCallback === "function") {
      const handle = window.requestIdleCallback(() => setIdle(true), { timeout: fallbackMs * 2 });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = window.setTimeout(() => setIdle(true), fallbackMs);
    return () => window.clearTimeout(timer);
  }, [fallbackMs]);
  return idle;
}
