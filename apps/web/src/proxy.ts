import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "./lib/csp";
import { loginPath, PATH_HEADER } from "./lib/paths";
import { STAFF_SESSION_COOKIE } from "./lib/cookies";
import { embedFrameAncestors } from "./lib/embed-origins";

/** Pages anyone may open. Everything else is the admin area. */
const PUBLIC_PATHS = new Set(["/login", "/verify", "/invite", "/kiosk"]);
/**
 * Patient pages: a signing link or ticket (also at the desk, `/kiosk/<ticket>`), an SMS form link
 * or an embed session is the credential, not a staff session.
 */
const PATIENT_PAGE_PREFIXES = ["/sign/", "/kiosk/", "/f/", "/embed/"];

const isPatientPagePath = (pathname: string) => PATIENT_PAGE_PREFIXES.some((prefix) => pathname.startsWith(prefix));
/** An organization's login URL (/login/<id>), offering its single sign-on. */
const isPublicPath = (pathname: string) => PUBLIC_PATHS.has(pathname) || /^\/login\/[^/]+$/.test(pathname);

/**
 * Runs before every page: sends visitors without a session cookie to /login (an optimistic
 * check; the admin layout then asks the API whether the session is valid), passes the path on
 * for that layout's redirect, and sets a per-request CSP nonce.
 */
export async function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const patientPage = isPatientPagePath(pathname);
  if (!isPublicPath(pathname) && !patientPage && !request.cookies.has(STAFF_SESSION_COOKIE)) {
    return NextResponse.redirect(new URL(loginPath(pathname + search), request.url));
  }

  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  // Portal pages show the institution's logo, an https URL on the institution's own host.
  const frameAncestors = pathname.startsWith("/embed/") ? await embedFrameAncestors(request.nextUrl.searchParams) : [];
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development", {
    httpsImages: patientPage,
    frameAncestors,
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set(PATH_HEADER, pathname + search);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: not the tRPC proxy, single sign-on’s redirects, Next’s assets, the icon,
      // uploaded logos (public images), the signing page’s page images (their grant is the credential),
      // the service worker or the web app manifest.
      // Prefetches too: a page fetched with `Purpose: prefetch` is shown later as it came, so it
      // needs its CSP and the session redirect like any other (server.mjs adds a fallback CSP
      // and X-Frame-Options to whatever does not pass here).
      source:
        "/((?!trpc/|api/|sso/|f/trpc/|f/api/|branding/logos/|signing-pages/|embed\\.js|sw\\.js|manifest\\.webmanifest|_next/static|_next/image|favicon.ico|icon.svg|robots.txt).*)",
    },
  ],
};
