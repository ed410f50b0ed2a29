import { apiOrigin } from "./api-origin";

/** `scheme://host[:port]` and nothing else: anything else must never reach a CSP header. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/i;
const LOOKUP_TIMEOUT_MS = 3_000;

export function isSafeOrigin(value: unknown): value is string {
  return typeof value === "string" && value.length <= 300 && ORIGIN.test(value);
}

/**
 * The origins that may frame an embed page, for its `frame-ancestors`: a public embed's
 * (`?embed=<code>`) or a personal link's session's (`?session=…`, `config.allowedOrigins`). An
 * unknown code or session, one without allowed origins, or an API that does not answer in time
 * all mean: no framing.
 */
export async function embedFrameAncestors(params: URLSearchParams): Promise<string[]> {
  const code = params.get("embed");
  const sessionId = params.get("session");
  if (code)
    return code.length <= 100
      ? allowedOrigins(`/trpc/publicEmbeds.describe?input=${encodeURIComponent(JSON.stringify({ code }))}`, {})
      : [];
  if (!sessionId || sessionId.length > 200) return [];
  return allowedOrigins("/trpc/sessions.current", { "x-session-id": sessionId });
}

async function allowedOrigins(path: string, headers: Record<string, string>): Promise<string[]> {
  try {
    const response = await fetch(`${apiOrigin()}${path}`, {
      headers,
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
