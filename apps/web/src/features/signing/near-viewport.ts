"use client";

import { useEffect, useRef, useState } from "react";

/**
 * True once the element comes within `margin` of the viewport, and from then on. The signing
 * page loads its heavy parts (pdf.js, the signature pad) through this: a screen that never
 * shows them (an expired link, the confirmation) never downloads them.
 */
export function useNearViewport<T extends Element>(margin = "25% 0px") {
  const ref = useRef<T>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    if (typeof IntersectionObserver === "undefined") return setNear(true);
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && setNear(true), { rootMargin: margin });
    observer.observe(element);
    return () => observer.disconnect();
  }, [near, margin]);
  return { ref, near };
}
