// The security headers every response of the web server carries, whichever path made it: a page
// the proxy (src/proxy.ts) saw gets its per-request CSP with a nonce; a response that did not
// pass the proxy (a build asset served from its brotli copy, an API answer, an uploaded logo,
// any request Next answers without running the proxy) still gets a CSP that allows nothing to
// run or frame it, X-Frame-Options (outside /embed/, where the CSP's frame-ancestors decides)
// and nosniff. Headers a handler set itself are kept.

/** For what the proxy did not cover: nothing may load, run or frame it. */
export const FALLBACK_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The service worker (public/sw.js): a worker runs under the CSP its script came with, and this one
 * fetches the patient pages and their assets from this origin; it runs no other script.
 */
export const SERVICE_WORKER_CSP = "default-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'";

/** Embedded forms may be framed by the origins their session allows (the proxy's CSP decides). */
const framable = (url) => /^\/embed\//.test(url ?? "");

/** The headers `url`'s response must have, for those not set yet. */
export function securityHeaders(url) {
  return {
    "content-security-policy": /^\/sw\.js(\?|$)/.test(url ?? "") ? SERVICE_WORKER_CSP : FALLBACK_CSP,
    "x-content-type-options": "nosniff",
    ...(framable(url) ? {} : { "x-frame-options": "DENY" }),
  };
}

/** Makes `res` add the missing security headers when its head is written (also by an implicit write in `end()`). */
export function withSecurityHeaders(req, res) {
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadWithSecurityHeaders(status, ...rest) {
    const given = rest.find((arg) => arg && typeof arg === "object" && !Array.isArray(arg)) ?? {};
    const givenNames = new Set(Object.keys(given).map((name) => name.toLowerCase()));
    for (const [name, value] of Object.entries(securityHeaders(req.url))) {
      if (!res.hasHeader(name) && !givenNames.has(name)) res.setHeader(name, value);
    }
    return writeHead.call(this, status, ...rest);
  };
  return res;
}
