/** Request header in which proxy.ts hands the requested path to server layouts. */
export const PATH_HEADER = "x-clinsign-path";

/** Only same-site paths are allowed as a post-login destination (no `//host` or `/\host`). */
export function safeNextPath(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
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
