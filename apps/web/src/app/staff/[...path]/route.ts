import type { NextRequest } from "next/server";
import { apiOrigin } from "../../../lib/api-origin";

/**
 * Staff file routes (the submissions export, a submission's PDF, the audit log CSV, a document's
 * PDF, and the uploads of documents and logos), passed on to the API's /staff/* routes with the
 * session cookie. Unlike lib/api-proxy.ts, the answer keeps its Content-Disposition and has no
 * overall deadline: an export of many submissions streams for as long as it takes, page by page.
 * Uploads stream through; `origin` and `sec-fetch-site` go along so the API can refuse a
 * cross-site POST that carries the cookie.
 */

export const dynamic = "force-dynamic";

const FORWARDED = [
  "cookie",
  "user-agent",
  "accept-language",
  "x-forwarded-for",
  "content-type",
  "content-length",
  "origin",
  "sec-fetch-site",
] as const;
const RETURNED = ["content-type", "content-disposition", "content-length", "cache-control", "x-request-id"] as const;
/** Until the API starts answering; the body may then take longer. */
const FIRST_BYTE_TIMEOUT_MS = 30_000;

export async function GET(request: NextRequest): Promise<Response> {
  return forward(request);
}

export async function POST(request: NextRequest): Promise<Response> {
  return forward(request);
}

async function forward(request: NextRequest): Promise<Response> {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const incoming = new URL(request.url);
  const headers = new Headers();
  for (const name of FORWARDED) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const firstByte = new AbortController();
  const timer = setTimeout(() => firstByte.abort(), FIRST_BYTE_TIMEOUT_MS);
  let upstream: Response;
  try {
    upstream = await fetch(`${apiOrigin()}${incoming.pathname}${incoming.search}`, {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      // Required by Node's fetch to stream a request body.
      ...(hasBody ? { duplex: "half" } : {}),
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.any([request.signal, firstByte.signal]),
    } as RequestInit);
  } catch {
    return Response.json(
      { error: "the API is not reachable" },
      { status: 502, headers: { "cache-control": "no-store" } },
    );
  } finally {
    clearTimeout(timer);
  }
  const responseHeaders = new Headers({ "cache-control": "no-store" });
  for (const name of RETURNED) {
    const value = upstream.headers.get(name);
    if (value !== null) responseHeaders.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
}
