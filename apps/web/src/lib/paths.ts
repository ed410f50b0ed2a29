/** Request header in which proxy.ts hands the requested path to server layouts. */
export const PATH_HEADER = "x-clinsign-path";

const PROBE_ORIGIN = "http://same-origin.invalid";
const isUnsafeChar = (c: string) => c === "\\" || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

/**
 * Only same-origin paths are allowed as a post-login destination. Browsers read `\` as `/` and
 * drop tabs and newlines from URLs, so `/\host` and `/\t/host` would become `//host` (another
 * origin): backslashes and control characters are refused anywhere, and the path must resolve
 * against our own origin without leaving it.
 */
export function safeNextPath(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || [...value].some(isUnsafeChar)) return "/";
  let resolved: URL;
  try {
    resolved = new URL(value, PROBE_ORIGIN);
  } catch {
    return "/";
  }
  if (resolved.origin !== PROBE_ORIGIN) return "/";
  if (value === "/login" || value.startsWith("/login?") || value.startsWith("/trpc")) return "/";
  return value;
}

/** The sign-in page, remembering where to return and optionally why the visitor is there. */
export function loginPath(next: string, reason?: "expired" | "signed-out"): string {
  const params = new URLSearchParams();
  const target = safeNextPath(next);
  if (target !== "/") params.set("next", target);
  if (reason) params.set("reason", reason);
  const query = params.toString();
  return query ? `/login?${query}` : "/login";
}
