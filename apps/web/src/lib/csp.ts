/**
 * The Content-Security-Policy of every page: scripts only from this origin and with the
 * request's nonce (Next.js adds it to its own scripts), no inline event handlers, no inline
 * styles, no framing. Development relaxes two rules for Next's tooling: 'unsafe-eval' (React's
 * dev stack traces) and inline styles (the dev overlay injects <style> elements without the
 * nonce; a nonce in the list would make browsers ignore 'unsafe-inline'). `httpsImages` lets
 * portal pages load images from any https origin (the institution's logo; branding only
 * accepts https logo URLs). `frameAncestors` are the origins an embed session allows to frame its
 * form; without them no page may be framed.
 */
export function contentSecurityPolicy(
  nonce: string,
  development: boolean,
  options: { httpsImages?: boolean; frameAncestors?: readonly string[] } = {},
): string {
  const ancestors = options.frameAncestors?.length ? options.frameAncestors.join(" ") : "'none'";
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${development ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    `img-src 'self' blob: data:${options.httpsImages ? " https:" : ""}`,
    "font-src 'self'",
    "connect-src 'self'",
    // The service worker (public/sw.js): 'strict-dynamic' above would not cover it.
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ].join("; ");
}
