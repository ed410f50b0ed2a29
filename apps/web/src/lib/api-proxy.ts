import type { NextRequest } from "next/server";
import { apiOrigin } from "./api-origin";

/**
 * Same-origin door to the API: the browser calls /trpc/* and /api/embed/uploads here, and this
 * handler passes the call on to the API unchanged, so the session cookie stays first-party and
 * the API never needs CORS. `x-session-id` carries an embedded form's session to the form calls.
 */

// `origin` and `sec-fetch-site` let the API refuse cross-site calls that carry the cookie (CSRF).
const FORWARDED_REQUEST_HEADERS = [
  "cookie",
  "content-type",
  "accept",
  "user-agent",
  "accept-language",
  "x-session-id",
  "x-portal-link",
  "origin",
  "sec-fetch-site",
] as const;
// `location`: the API's own redirects (single sign-on), which fetch leaves unfollowed here.
const RETURNED_RESPONSE_HEADERS = [
  "content-type",
  "cache-control",
  "retry-after",
  "x-request-id",
  "vary",
  "location",
] as const;
const UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * Passes one browser request on to the API and streams the answer back: to the same path, or
 * with `pathPrefix` (the SMS portal's `/f`) taken off.
 */
export async function forwardToApi(request: NextRequest, pathPrefix = ""): Promise<Response> {
  const incoming = new URL(request.url);
  const path =
    pathPrefix && incoming.pathname.startsWith(`${pathPrefix}/`)
      ? incoming.pathname.slice(pathPrefix.length)
      : incoming.pathname;
  const target = `${apiOrigin()}${path}${incoming.search}`;

  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // server.mjs has set x-forwarded-for to the client this server saw (never a visitor's own
  // header), so the API's rate limits and audit entries see the client, not this proxy.
  const forwardedFor = request.headers.get("x-forwarded-for");
  if (forwardedFor) headers.set("x-forwarded-for", forwardedFor);

  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      // Required by Node's fetch to stream a request body.
      ...(hasBody ? { duplex: "half" } : {}),
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)]),
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
  }

  const responseHeaders = new Headers();
  for (const name of RETURNED_RESPONSE_HEADERS) {
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
