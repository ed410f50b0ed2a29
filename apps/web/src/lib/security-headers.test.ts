import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "../proxy";
import { FALLBACK_CSP, SERVICE_WORKER_CSP, withSecurityHeaders } from "./security-headers.mjs";

const PREFETCH = { purpose: "prefetch", "sec-purpose": "prefetch" };

describe("the proxy runs for prefetches too", () => {
  it("matches a page requested with Purpose: prefetch or by the router's prefetch, so it gets its CSP", () => {
    for (const headers of [PREFETCH, { "next-router-prefetch": "1" }, {}]) {
      for (const url of ["/submissions", "/sign/abc", "/embed/form?session=x", "/login"]) {
        expect(unstable_doesMiddlewareMatch({ config, url, headers }), `${url} ${JSON.stringify(headers)}`).toBe(true);
      }
    }
    expect(unstable_doesMiddlewareMatch({ config, url: "/_next/static/chunks/app.js", headers: PREFETCH })).toBe(false);
  });

  it("leaves the service worker and the manifest alone: no login redirect for a patient's browser", () => {
    for (const url of ["/sw.js", "/manifest.webmanifest"])
      expect(unstable_doesMiddlewareMatch({ config, url }), url).toBe(false);
  });
});

describe("security headers on every response of the web server", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      withSecurityHeaders(req, res);
      if (req.url === "/own-csp") {
        res.setHeader("content-security-policy", "default-src 'self'");
        res.end("page");
      } else if (req.url === "/write-head") {
        res.writeHead(200, { "content-type": "text/plain", "X-Frame-Options": "SAMEORIGIN" });
        res.end("asset");
      } else {
        res.end("no headers of its own");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("adds CSP, X-Frame-Options and nosniff to a prefetched response that has none", async () => {
    const res = await fetch(`${base}/submissions`, { headers: PREFETCH });
    expect(res.headers.get("content-security-policy")).toBe(FALLBACK_CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("keeps the headers a handler set itself, and lets the CSP decide framing of embedded forms", async () => {
    expect((await fetch(`${base}/own-csp`, { headers: PREFETCH })).headers.get("content-security-policy")).toBe(
      "default-src 'self'",
    );
    const head = await fetch(`${base}/write-head`);
    expect(head.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(head.headers.get("content-security-policy")).toBe(FALLBACK_CSP);
    const embed = await fetch(`${base}/embed/form?session=x`, { headers: PREFETCH });
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(embed.headers.get("content-security-policy")).toBe(FALLBACK_CSP);
  });

  it("lets the service worker fetch from this origin, and nothing else", async () => {
    const worker = await fetch(`${base}/sw.js`);
    expect(worker.headers.get("content-security-policy")).toBe(SERVICE_WORKER_CSP);
    expect(SERVICE_WORKER_CSP).toContain("default-src 'self'");
    expect(SERVICE_WORKER_CSP).toContain("script-src 'none'");
    // Only the worker's own script: another path named like it gets the strict fallback.
    expect((await fetch(`${base}/x/sw.js`)).headers.get("content-security-policy")).toBe(FALLBACK_CSP);
  });
});
