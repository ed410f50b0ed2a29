"use client";

import { useBrowserIdle } from "@clinsign/ui";
import { useEffect, useSyncExternalStore } from "react";

/** The caches public/sw.js keeps patient pages and their assets in (its `PAGES` and `ASSETS`). */
const KEPT_PAGES = "clinsign-pages-v1";
const KEPT_ASSETS = "clinsign-assets-v1";
/** What public/sw.js answers from the device (its `ASSET`). */
const ASSET = /^\/(_next\/static\/|sign\/pdfjs\/|signing-pages\/|branding\/logos\/|icon\.svg$)/;

/**
 * Registers the service worker (public/sw.js) once the patient page is idle after its first
 * paint, so the first visit on a slow phone loads nothing more before it can be used; from then
 * on the page and its assets are kept for a reload without network.
 */
export function useServiceWorker(): void {
  const idle = useBrowserIdle(3000);
  useEffect(() => {
    if (!idle || !("serviceWorker" in navigator) || !window.isSecureContext) return;
    navigator.serviceWorker
      .register("/sw.js", { scope: "/" })
      .then(() => untilControlled())
      .then(() => keepThisPage())
      .catch(() => {
        // Without it the page works as before, online.
      });
  }, [idle]);
}

/** Resolves once the service worker answers this page's requests (it claims open pages when it starts). */
function untilControlled(): Promise<void> {
  if (navigator.serviceWorker.controller) return Promise.resolve();
  return new Promise((resolve) =>
    navigator.serviceWorker.addEventListener("controllerchange", () => resolve(), { once: true }),
  );
}

/**
 * The first visit loaded the page before the service worker was there: the page itself, what it
 * loaded so far and every page image it names are kept now, so that a reload without network finds
 * them. What loads from now on passes through the worker, which keeps it.
 */
async function keepThisPage(): Promise<void> {
  const sameOrigin = (url: string) => {
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.origin === window.location.origin && ASSET.test(parsed.pathname) ? parsed.href : null;
    } catch {
      return null;
    }
  };
  const loaded = performance.getEntriesByType("resource").map((entry) => entry.name);
  // Page images below the screen have not loaded yet (lazy): their smallest width is kept.
  const named = Array.from(document.images, (image) => image.getAttribute("src") ?? "");
  const assets = [...new Set([...loaded, ...named].map(sameOrigin).filter((url): url is string => url !== null))];
  const [pages, kept] = await Promise.all([caches.open(KEPT_PAGES), caches.open(KEPT_ASSETS)]);
  await pages.add(window.location.href);
  await Promise.all(
    assets.map(async (url) => {
      if (!(await kept.match(url))) await kept.add(url).catch(() => {});
    }),
  );
}

/**
 * Removes the kept copy of a patient page (its URL) from the device once it is done: a signed
 * link, a sent form, a locked kiosk. The page's HTML names the document; nothing of it should
 * outlive the patient's use on a shared device.
 */
export async function forgetKeptPage(url: string = window.location.href): Promise<void> {
  try {
    if (typeof caches === "undefined") return;
    const cache = await caches.open(KEPT_PAGES);
    await cache.delete(url, { ignoreSearch: false, ignoreVary: true });
  } catch {
    // No cache storage (private mode): nothing was kept.
  }
}

function subscribe(notify: () => void): () => void {
  window.addEventListener("online", notify);
  window.addEventListener("offline", notify);
  return () => {
    window.removeEventListener("online", notify);
    window.removeEventListener("offline", notify);
  };
}

/** Whether the browser believes it has a network (true during server rendering). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
}
