"use client";

import { useBrowserIdle } from "@clinsign/ui";
import { useEffect, useSyncExternalStore } from "react";
import { forgetExpiredForms } from "./held";

/**
 * Registers the service worker (public/sw.js) once the patient page is idle after its first
 * paint, so the first visit on a slow phone loads nothing more before it can be used; from then
 * on the page and its assets are kept for a reload without network.
 */
export function useServiceWorker(): void {
  const idle = useBrowserIdle(3000);
  useEffect(() => {
    if (!idle) return;
    void forgetExpiredForms().catch(() => {});
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
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
/** A worker that does not answer (stopped, updating) is not waited for longer than this. */
const WORKER_ANSWER_MS = 5_000;

/**
 * The first visit loaded the page before the service worker was there: the worker is asked to
 * keep the page itself and what it loaded so far (mostly from the browser's HTTP cache), so that
 * a reload without network finds them; what loads from now on passes through the worker, which
 * keeps it. The document's pages below the screen (lazy, not loaded yet) are kept later, one after
 * the other at their smallest width, so that a patient who loses the network can still read to
 * the end. What is kept, and where, is the worker's to decide (public/sw.js).
 */
async function keepThisPage(): Promise<void> {
  const loaded = performance.getEntriesByType("resource").map((entry) => entry.name);
  await tellWorker({ type: "keep", urls: [window.location.href, ...loaded] });
  window.setTimeout(() => {
    const later = Array.from(document.images, (image) => image.getAttribute("src") ?? "");
    void tellWorker({ type: "keep", urls: later, oneByOne: true });
  }, LATER_PAGES_DELAY_MS);
}

/**
 * Removes the kept copy of a patient page (its URL) from the device once it is done: a signed
 * link, a sent form, a locked kiosk. The page's HTML names the document; nothing of it should
 * outlive the patient's use on a shared device.
 */
export async function forgetKeptPage(url: string = window.location.href): Promise<void> {
  await tellWorker({ type: "forget", url });
}

type WorkerMessage = { type: "keep"; urls: string[]; oneByOne?: boolean } | { type: "forget"; url: string };

/** Sends the service worker a message and resolves once it answers that it is done (or is not there). */
async function tellWorker(message: WorkerMessage): Promise<void> {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  const worker = (await navigator.serviceWorker.getRegistration("/").catch(() => undefined))?.active;
  if (!worker) return;
  await new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    const timer = window.setTimeout(resolve, WORKER_ANSWER_MS);
    channel.port1.onmessage = () => {
      window.clearTimeout(timer);
      resolve();
    };
    worker.postMessage(message, [channel.port2]);
  });
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
