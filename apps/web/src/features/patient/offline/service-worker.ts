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

/** The document's later pages are kept this long after the rest, so they never compete with the page's own loading. */
const LATER_PAGES_DELAY_MS = 10_000;

/**
 * The first visit loaded the page before the service worker was there: the page itself and what
 * it loaded so far are kept now (mostly from the browser's HTTP cache), so that a reload without
 * network finds them; what loads from now on passes through the worker, which keeps it. The
 * document's pages below the screen (lazy, not loaded yet) are kept later, one after the other at
 * their smallest width, so that a patient who loses the network can still read to the end.
 */
async function keepThisPage(): Promise<void> {
  const loaded = performance.getEntriesByType("resource").map((entry) => entry.name);
  const [pages, kept] = await Promise.all([caches.open(KEPT_PAGES), caches.open(KEPT_ASSETS)]);
  await pages.add(window.location.href);
  await keepAssets(kept, loaded);
  window.setTimeout(() => {
    const later = Array.from(document.images, (image) => image.getAttribute("src") ?? "");
    void keepAssets(kept, later, true);
  }, LATER_PAGES_DELAY_MS);
}

/** This origin's assets among `urls` that are not kept yet, fetched and kept (one by one when `oneByOne`). */
async function keepAssets(cache: Cache, urls: string[], oneByOne = false): Promise<void> {
  const own = [...new Set(urls.map(assetUrl).filter((url): url is string => url !== null))];
  const keep = async (url: string) => {
    if (!(await cache.match(url))) await cache.add(url).catch(() => {});
  };
  if (!oneByOne) await Promise.all(own.map(keep));
  else for (const url of own) await keep(url);
}

/** The absolute URL of one of this origin's assets that public/sw.js keeps; null for anything else. */
function assetUrl(url: string): string | null {
  try {
    const parsed = new URL(url, window.location.href);
    return parsed.origin === window.location.origin && ASSET.test(parsed.pathname) ? parsed.href : null;
  } catch {
    return null;
  }
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
