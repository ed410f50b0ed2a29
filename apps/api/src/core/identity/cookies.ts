import type { Services } from "../context";

/**
 * The identity wing's cookies: HTTP-only, SameSite=Lax (sent on top-level navigation to the
 * console, never on cross-site subrequests), Secure when the console is served over HTTPS.
 */

/** The console's staff session cookie. */
export const STAFF_SESSION_COOKIE = "clinsign_session";
/** A pending sign-in between the password and the second step (or first-factor set-up). */
export const PENDING_SIGN_IN_COOKIE = "clinsign_pending_sign_in";
/** A provider's login waiting for an existing account to prove itself and confirm the link. */
export const SSO_LINK_COOKIE = "clinsign_sso_link";

type WebConfig = Pick<Services["config"], "publicWebUrl">;

/** A cookie's Set-Cookie value (empty with max-age 0 clears it). */
export function httpOnlyCookie(config: WebConfig, name: string, value: string, maxAgeSeconds: number): string {
  const secure = config.publicWebUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** The staff session cookie; it ends with the session's absolute end (the idle end is the server's to check). */
export function staffSessionCookieHeader(config: WebConfig, value: string, maxAgeSeconds: number): string {
  return httpOnlyCookie(config, STAFF_SESSION_COOKIE, value, maxAgeSeconds);
}

/** The Set-Cookie value of a staff session admission opened: it ends with the session's absolute end. */
export function openedStaffSessionCookie(config: WebConfig, staffSession: { token: string; expiresAt: Date }): string {
  return staffSessionCookieHeader(
    config,
    staffSession.token,
    Math.max(0, Math.floor((staffSession.expiresAt.getTime() - Date.now()) / 1000)),
  );
}
