import { apiOrigin } from "./api-origin";

/** `scheme://host[:port]` and nothing else: anything else must never reach a CSP header. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/i;
const LOOKUP_TIMEOUT_MS = 3_000;

export function isSafeOrigin(value: unknown): value is string {
  return typeof value === "string" && value.length <= 300 && ORIGIN.test(value);
}

/**
 * The origins an embed session allows to frame its form (`config.allowedOrigins`), for the
 * embed page's `frame-ancestors`. An unknown or expired session, a session without allowed
 * origins, or an API that does not answer in time all mean: no framing.
 */
export async function embedFrameAncestors(sessionId: string | null): Promise<string[]> {
  if (!sessionId || sessionId.length > 200) return [];
  try {
    const response = await fetch(`${apiOrigin()}/trpc/sessions.current`, {
      headers: { "x-session-id": sessionId },
      cache: "no-store",
      signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
    });
    if (!response.ok) return [];
    const body = (await response.json()) as { result?: { data?: { allowedOrigins?: unknown } } };
    const origins = body.result?.data?.allowedOrigins;
    return Array.isArray(origins) ? origins.filter(isSafeOrigin) : [];
  } catch {
    return [];
  }
}
