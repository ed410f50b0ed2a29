import { headers } from "next/headers";
import { apiOrigin } from "./api-origin";

/** The incoming request's headers the API needs to see the patient, not this server: address, language, browser. */
const FORWARDED = ["user-agent", "accept-language", "x-forwarded-for"] as const;

/** What `queryApi` checks an answer with: a contracts schema (anything with zod's `safeParse`). */
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

export type ApiAnswer<T> = { kind: "ok"; data: T } | { kind: "refused"; status: number } | { kind: "unavailable" };

/**
 * A tRPC query from the web server to the API while rendering a page (GET, no caching), its
 * answer checked against `schema`. `refused` with the HTTP status of an error answer;
 * `unavailable` when the API did not answer in time or answered something else: the page then
 * renders without it and its client asks again.
 */
export async function queryApi<T>(
  procedure: string,
  input: unknown,
  schema: Schema<T>,
  options: { cookie?: string; timeoutMs: number },
): Promise<ApiAnswer<T>> {
  const incoming = await headers();
  const forwarded: Record<string, string> = { accept: "application/json" };
  if (options.cookie) forwarded.cookie = options.cookie;
  for (const name of FORWARDED) {
    const value = incoming.get(name);
    if (value) forwarded[name] = value;
  }
  const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  try {
    const response = await fetch(`${apiOrigin()}/trpc/${procedure}${query}`, {
      headers: forwarded,
      cache: "no-store",
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (!response.ok) return { kind: "refused", status: response.status };
    const body = (await response.json()) as { result?: { data?: unknown } };
    const parsed = schema.safeParse(body.result?.data);
    return parsed.success ? { kind: "ok", data: parsed.data } : { kind: "unavailable" };
  } catch {
    return { kind: "unavailable" };
  }
}
