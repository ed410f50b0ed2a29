// ClinSign's service worker: the patient pages keep working when the network drops (issue 35,
// docs/signatures.md "Offline"). Hand-written rather than Workbox: it does three things, each a
// few lines, and a dependency would hide which requests it answers.
//
// - A patient page (a signing link, the desk's kiosk, an SMS form, an embedded form) is fetched
//   from the network first; its last answer is kept and shown when the network is gone, so a
//   reload or a reopened tab finds the page.
// - Build assets (hashed names, never changing), pdf.js's fonts and the document's page images
//   are kept once fetched and answered from the device.
// - Everything else, above all every call to the API and every staff page, goes to the network
//   untouched: staff pages are online-only, and nothing a patient sends is answered from a cache.
//
// What a patient page holds while offline (a signature, answers) is the page's, in IndexedDB,
// encrypted; this worker never sees it. The page deletes its own cached copy once it is done.

const PAGES = "clinsign-pages-v1";
const ASSETS = "clinsign-assets-v1";
const PATIENT_PAGE = /^\/(sign|kiosk|f|embed)\/[^/]/;
const ASSET = /^\/(_next\/static\/|sign\/pdfjs\/|signing-pages\/|branding\/logos\/|icon\.svg$)/;
/** Page images and build assets are many but small; past this the oldest go first. */
const MAX_ASSETS = 400;
const MAX_PAGES = 20;

self.addEventListener("install", () => {
  void self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== PAGES && name !== ASSETS) await caches.delete(name);
      // The page's request starts while the worker wakes up, instead of after.
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && PATIENT_PAGE.test(url.pathname)) {
    event.respondWith(pageFromNetworkOrDevice(event));
  } else if (ASSET.test(url.pathname)) {
    event.respondWith(assetFromDeviceOrNetwork(request));
  }
});

/** The page from the network, kept for later; the kept copy when the network is gone. */
async function pageFromNetworkOrDevice(event) {
  const request = event.request;
  try {
    const response = (await event.preloadResponse) || (await fetch(request));
    if (response.ok && response.type === "basic") await keep(PAGES, request, response.clone(), MAX_PAGES);
    return response;
  } catch (error) {
    const kept = await caches.match(request, { cacheName: PAGES, ignoreVary: true });
    if (kept) return kept;
    throw error;
  }
}

/** A build asset or page image from the device when kept there, else fetched and kept. */
async function assetFromDeviceOrNetwork(request) {
  const kept = await caches.match(request, { cacheName: ASSETS, ignoreVary: true });
  if (kept) return kept;
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") await keep(ASSETS, request, response.clone(), MAX_ASSETS);
    return response;
  } catch (error) {
    const other = await otherWidthOfPage(request.url);
    if (other) return other;
    throw error;
  }
}

/**
 * Offline, a page image at another width than the one asked for (the screen turned, the zoom
 * changed): `/signing-pages/<grant>/<version>/<page>-<width>.webp` at any width kept.
 */
async function otherWidthOfPage(url) {
  const page = /^(.*\/signing-pages\/.+\/\d+-)\d+\.webp$/.exec(url);
  if (!page) return undefined;
  const cache = await caches.open(ASSETS);
  const keys = await cache.keys();
  const same = keys.filter((key) => key.url.startsWith(page[1]) && /\d+\.webp$/.test(key.url.slice(page[1].length)));
  return same.length > 0 ? cache.match(same[same.length - 1]) : undefined;
}

async function keep(name, request, response, max) {
  try {
    const cache = await caches.open(name);
    await cache.put(request, response);
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - max))) await cache.delete(old);
  } catch {
    // A full quota: the page still works online, it is only not kept.
  }
}
