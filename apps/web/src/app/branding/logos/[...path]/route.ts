import type { NextRequest } from "next/server";
import { apiOrigin } from "../../../../lib/api-origin";

/**
 * Uploaded branding logos (`/branding/logos/<orgId>/<yyyymm>/<random>`), passed through from the
 * API so the portal, form and preview pages load them from their own origin (`img-src 'self'`).
 * Public: patients see them. The API's type, policy and caching headers come along unchanged.
 */

export const dynamic = "force-dynamic";

const RETURNED = [
  "content-type",
  "content-length",
  "cache-control",
  "content-security-policy",
  "x-content-type-options",
  "cross-origin-resource-policy",
] as const;
const TIMEOUT_MS = 10_000;

export async function GET(request: NextRequest): Promise<Response> {
  const { pathname } = new URL(request.url);
  let upstream: Response;
  try {
    upstream = await fetch(`${apiOrigin()}${pathname}`, {
      redirect: "manual",
      cache: "no-store",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    return new Response(null, { status: 502, headers: { "cache-control": "no-store" } });
  }
  const headers = new Headers({ "x-content-type-options": "nosniff" });
  for (const name of RETURNED) {
    const value = upstream.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(upstream.ok ? upstream.body : null, { status: upstream.status, headers });
}
