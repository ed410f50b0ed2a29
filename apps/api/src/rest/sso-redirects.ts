import type { IncomingMessage, ServerResponse } from "node:http";
import type { SsoErrorCode } from "@clinsign/contracts";
import type { RequestMeta, Services } from "../core/context";
import { AppError } from "../core/errors";
import { isUuid } from "../core/documents/documents";
import { finishSsoSignIn, SSO_ATTEMPT_SECONDS, SSO_COOKIE, startSsoSignIn } from "../core/identity/sso/sign-in";
import { SSO_LINK_SECONDS } from "../core/identity/sso/membership";
import { publicContext } from "../core/identity/public-context";
import { parseCookies } from "../wire/io";
import { httpOnlyCookie, openedStaffSessionCookie, SSO_LINK_COOKIE } from "../core/identity/cookies";
import type { RestRequest } from "./route-types";

/**
 * The browser's way through single sign-on, on the web origin (the web app passes /sso/* on):
 * `/sso/start?org=<id>` sends it to the provider with a browser-binding cookie, and
 * `/sso/callback` (the redirect URI) opens the staff session and sends it to the console. Every
 * failure lands on the login page with a coarse reason, never an error page.
 */
export async function serveSsoRedirect(services: Services, { req, res, url, request }: RestRequest): Promise<void> {
  try {
    await route(services, req, res, url, request);
  } catch (error) {
    // Whatever broke (the database, a sealed value the key cannot open), the person sees the login page with a message.
    services.log.error({ err: error, requestId: request.requestId }, "single sign-on failed");
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(303, { location: `${services.config.publicWebUrl}/login?sso_error=failed` });
      res.end();
    }
  }
}

async function route(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestMeta,
): Promise<void> {
  const web = services.config.publicWebUrl;
  const secure = web.startsWith("https:") ? "; Secure" : "";
  const bindingCookie = (value: string, maxAge: number) =>
    `${SSO_COOKIE}=${value}; Path=/sso; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
  const loginPage = (error: SsoErrorCode, organizationId: string | null) =>
    `${web}/login${organizationId ? `/${organizationId}` : ""}?sso_error=${error}`;
  const redirect = (location: string, cookies: string[]) => {
    res.writeHead(303, { location, "set-cookie": cookies });
    res.end();
  };
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET" });
    res.end();
    return;
  }

  if (url.pathname === "/sso/start") {
    const organizationId = url.searchParams.get("org") ?? "";
    if (!isUuid(organizationId)) return redirect(loginPage("unavailable", null), []);
    try {
      const started = await startSsoSignIn(publicContext(services, request), {
        organizationId,
        loginHint: url.searchParams.get("login_hint") ?? undefined,
      });
      redirect(started.location, [bindingCookie(started.browserSecret, SSO_ATTEMPT_SECONDS)]);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      redirect(loginPage(error.code === "rate_limited" ? "failed" : "unavailable", organizationId), []);
    }
    return;
  }

  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const result = await finishSsoSignIn(publicContext(services, request), {
    state: param("state"),
    code: param("code"),
    error: param("error"),
    browserSecret: parseCookies(req.headers.cookie)[SSO_COOKIE],
  });
  // The binding cookie is spent either way.
  const cleared = bindingCookie("", 0);
  if (result.ok === true)
    redirect(`${web}/`, [cleared, openedStaffSessionCookie(services.config, result.staffSession)]);
  else if (result.ok === "link")
    // An existing account to connect: it proves itself on the link page, in this browser (the link cookie).
    redirect(`${web}/login/link`, [
      cleared,
      httpOnlyCookie(services.config, SSO_LINK_COOKIE, result.linkToken, SSO_LINK_SECONDS),
    ]);
  else redirect(loginPage(result.error, result.organizationId), [cleared]);
}
