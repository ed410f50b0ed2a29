import type { NextRequest } from "next/server";
import { apiOrigin } from "./api-origin";

/**
 * The web app's one door to the API. Every proxy route (/trpc, /f/trpc, /staff, /branding/logos, /signing-pages,
 * the two upload routes, /api/verify, /sso) passes the browser's call on here unchanged, so the
 * session and portal cookies stay first-party and the API never needs CORS.
 */

/**
 * What the API may read of the browser's request: its cookies and body description, the embedded
 * form's session (`x-session-id`) and the SMS portal's link (`x-portal-link`); `origin` and
 * `sec-fetch-site` let the API refuse cross-site calls that carry a cookie (CSRF), and
 * `content-length` lets it refuse an oversize upload before reading it. server.mjs has set
 * `x-forwarded-for` to the client this server saw (never a visitor's own header), so the API's
 * rate limits and audit entries see the client, not this proxy.
 */
export const FORWARDED_REQUEST_HEADERS = [
  "cookie",
  "content-type",
  "content-length",
  "accept",
  "user-agent",
  "accept-language",
  "x-session-id",
  "x-portal-link",
  "origin",
  "sec-fetch-site",
  "x-forwarded-for",
] as const;

/**
 * What the browser gets of the API's answer, besides every Set-Cookie: `location` for the API's
 * own redirects (single sign-on), which fetch leaves unfollowed here; the type, caching and
 * policy headers a logo is served with.
 */
export const RETURNED_RESPONSE_HEADERS = [
  "content-type",
  "cache-control",
  "retry-after",
  "x-request-id",
  "vary",
  "location",
  "content-security-policy",
  "x-content-type-options",
  "cross-origin-resource-policy",
] as const;

/** A file's answer also keeps its name and length. */
const FILE_RESPONSE_HEADERS = ["content-disposition", "content-length"] as const;

/** The whole answer, or for files the start of it. */
const UPSTREAM_TIMEOUT_MS = 30_000;

export interface ProxyOptions {
  /** Taken off the path before it is passed on: the SMS portal's `/f`, the verify page's `/api`. */
  pathPrefix?: string;
  /**
   * The answer is a file (staff downloads and uploads, logos): it keeps its Content-Disposition
   * and Content-Length, and only its first byte has a deadline, so an export of many submissions
   * streams for as long as it takes, page by page.
   */
  file?: boolean;
}

/** Passes one browser request on to the API and streams the answer back. */
export async function forwardToApi(request: NextRequest, options: ProxyOptions = {}): Promise<Response> {
  const { pathPrefix = "", file = false } = options;
  const incoming = new URL(request.url);
  const path =
    pathPrefix && incoming.pathname.startsWith(`${pathPrefix}/`)
      ? incoming.pathname.slice(pathPrefix.length)
      : incoming.pathname;

  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }

  // A file's body may stream longer than the deadline, so only its first byte is held to it.
  const firstByte = new AbortController();
  const timer = file ? setTimeout(() => firstByte.abort(), UPSTREAM_TIMEOUT_MS) : undefined;
  const deadline = file ? firstByte.signal : AbortSignal.timeout(UPSTREAM_TIMEOUT_MS);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(`${apiOrigin()}${path}${incoming.search}`, {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      // Required by Node's fetch to stream a request body.
      ...(hasBody ? { duplex: "half" } : {}),
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.any([request.signal, deadline]),
    } as RequestInit);
  } catch (error) {
    console.error(
      `api proxy: the API at ${apiOrigin()} did not answer`,
      error instanceof Error ? error.message : error,
    );
    return Response.json(
      { error: "the API is not reachable" },
      { status: 502, headers: { "cache-control": "no-store" } },
    );
  } finally {
    clearTimeout(timer);
  }

  const responseHeaders = new Headers({ "cache-control": "no-store" });
  for (const name of file ? [...RETURNED_RESPONSE_HEADERS, ...FILE_RESPONSE_HEADERS] : RETURNED_RESPONSE_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) responseHeaders.set(name, value);
  }
  // Each cookie is its own header: joining them with commas would break their Expires dates.
  for (const cookie of upstream.headers.getSetCookie()) responseHeaders.append("set-cookie", cookie);

  return new Response(upstream.body, {
    status: upstream.status,
    statusText: upstream.statusText,
    headers: responseHeaders,
  });
}
