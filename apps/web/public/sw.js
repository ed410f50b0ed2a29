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
// encrypted; this worker never sees it. The page tells the worker (a message, answered when done)
// what it loaded before the worker was there, to keep it, and to forget its copy once it is done:
// the cache names and the rules of what is kept live here only.

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

self.addEventListener("message", (event) => {
  const message = event.data;
  const answer = event.ports[0];
  const work =
    message?.type === "keep"
      ? keepLoaded(message.urls, message.oneByOne === true)
      : message?.type === "forget"
        ? forgetPage(message.url)
        : Promise.resolve();
  event.waitUntil(work.catch(() => {}).then(() => answer?.postMessage("done")));
});

/**
 * What a page loaded before the worker answered it (the first visit), kept now: the page itself
 * and this origin's assets the worker would keep, mostly from the browser's HTTP cache. One by
 * one when `oneByOne` (the document's later pages, so they never compete with the page's own).
 */
async function keepLoaded(urls, oneByOne) {
  if (!Array.isArray(urls)) return;
  const own = [...new Set(urls.map(ownUrl).filter((url) => url !== null))];
  const keepOne = async (url) => {
    const page = PATIENT_PAGE.test(url.pathname);
    if (!page && (!ASSET.test(url.pathname) || (await caches.match(url.href, { cacheName: ASSETS })))) return;
    const response = await fetch(url.href, { credentials: "same-origin" }).catch(() => null);
    if (response?.ok) await keep(page ? PAGES : ASSETS, url.href, response, page ? MAX_PAGES : MAX_ASSETS);
  };
  if (!oneByOne) await Promise.all(own.map(keepOne));
  else for (const url of own) await keepOne(url);
}

/** A page's kept copy, deleted: the patient is done with it (signed, sent, the desk locked). */
async function forgetPage(url) {
  const own = ownUrl(url);
  if (own) await (await caches.open(PAGES)).delete(own.href, { ignoreVary: true });
}

/** `url` as a URL of this origin; null for anything else. */
function ownUrl(url) {
  try {
    const parsed = new URL(url, self.location.origin);
    return parsed.origin === self.location.origin ? parsed : null;
  } catch {
    return null;
  }
}

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

/** Puts since the caches were last trimmed: listing 400 kept assets after every put would cost more than keeping them. */
let putsSinceTrim = 0;
const TRIM_EVERY = 25;

async function keep(name, request, response, max) {
  try {
    const cache = await caches.open(name);
    await cache.put(request, response);
    // Pages are few (and hold a patient's document title): trimmed at once; assets now and then.
    if (name !== PAGES && ++putsSinceTrim < TRIM_EVERY) return;
    if (name !== PAGES) putsSinceTrim = 0;
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - max))) await cache.delete(old);
  } catch {
    // A full quota: the page still works online, it is only not kept.
  }
}
