import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import { TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { RequestMeta, Services } from "../core/context";
import { AppError } from "../core/errors";
import { areaOf, handleRest, isAreaAPath } from "../rest/adapter";
import { renderDocsPage } from "../rest/docs-page";
import { sendError } from "../rest/envelopes";
import { openApiDocument } from "../rest/openapi";
import type { RestRequest } from "../rest/route-types";
import { appRouter } from "../trpc/root";
import { observeWhenFinished, serveMetricsOnApi, trpcRouteLabel } from "./metrics";
import { startRequestSpan, type Span } from "../core/tracing/tracing";
import { SMS_FORM_ACCESS_COOKIE, SMS_FORM_IDENTITY_COOKIE } from "../core/credentials/sms-links";
import { answerThenClose, bearerToken, parseCookies, sendJson } from "../wire/io";
import { PENDING_SIGN_IN_COOKIE, SSO_LINK_COOKIE, STAFF_SESSION_COOKIE } from "../core/identity/cookies";

const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const isLoopbackAddress = (address: string | undefined) =>
  !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));

/** Longest X-Forwarded-For we read, and longest entry: a header is no place to store a novel. */
const MAX_FORWARDED_FOR_LENGTH = 1024;
const MAX_ADDRESS_LENGTH = 64;

/** An address as proxies write it (`a.b.c.d`, `a.b.c.d:port`, `[v6]:port`, `v6`), or null. */
function forwardedAddress(entry: string): string | null {
  const value = entry.trim();
  if (value.length === 0 || value.length > MAX_ADDRESS_LENGTH) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(value);
  const address = bracketed?.[1] ?? withPort?.[1] ?? value;
  return isIP(address) ? address : null;
}

/**
 * The client's address, as rate limits, audit entries and the sealed PDF's audit page record it.
 * The socket's peer, unless that peer is a proxy we trust (TRUST_PROXY, or a loopback peer: our
 * own web server forwarding its visitors). Then X-Forwarded-For is read from the right, where
 * the proxies we trust appended what they saw, skipping loopback hops: the first address we do
 * not trust is the client. Whatever a client wrote further left is its own claim and ignored; an
 * entry that is not an address (or an overlong header) leaves us with the peer.
 */
export function clientIp(req: Pick<IncomingMessage, "headers" | "socket">, trustProxy: boolean): string | null {
  const peer = req.socket.remoteAddress ?? null;
  if (!trustProxy && !isLoopbackAddress(peer ?? undefined)) return peer;
  const header = req.headers["x-forwarded-for"];
  const forwarded = Array.isArray(header) ? header.join(",") : header;
  if (!forwarded || forwarded.length > MAX_FORWARDED_FOR_LENGTH) return peer;
  const entries = forwarded.split(",");
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = forwardedAddress(entries[i]!);
    if (!address) return peer;
    if (!isLoopbackAddress(address)) return address;
  }
  return peer;
}

/**
 * HTTPS as the product promises it: TLS on our own socket, or a trusted proxy that says the
 * client used https. The development switch admits plain HTTP only from loopback peers that
 * did not come through a proxy.
 */
export function isSecureRequest(req: IncomingMessage, config: Services["config"]): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  if (config.trustProxy) {
    const proto = req.headers["x-forwarded-proto"];
    const first = (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase();
    if (first) return first === "https";
  }
  return config.allowInsecureHttp && isLoopbackAddress(req.socket.remoteAddress) && !req.headers["x-forwarded-for"];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * CSRF: a browser attaches the staff or portal cookie to a request another site makes it send.
 * Calls on /trpc other than GET are therefore refused when they carry a cookie and the browser says
 * they come from elsewhere: `Sec-Fetch-Site` other than same-origin, else an `Origin` that is not
 * the web app's (PUBLIC_WEB_URL) or the API's. The web app's proxy forwards both headers. Calls
 * without a cookie (a Bearer token, an embed session header) carry no ambient credential, and
 * clients that send neither header are not browsers that could be tricked.
 */
export function isCrossSiteRequest(
  req: Pick<IncomingMessage, "method" | "headers">,
  config: Pick<Services["config"], "publicWebUrl" | "publicApiUrl">,
): boolean {
  if (req.method === "GET" || req.method === "HEAD" || !req.headers.cookie) return false;
  const fetchSite = req.headers["sec-fetch-site"];
  if (typeof fetchSite === "string") return fetchSite !== "same-origin" && fetchSite !== "none";
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return origin !== originOf(config.publicWebUrl) && origin !== originOf(config.publicApiUrl);
}

/** What the services record of a request: its id (the caller's, when well-formed), address and user agent. */
function requestMetaOf(req: IncomingMessage, config: Services["config"]): RequestMeta {
  const incomingId = req.headers["x-request-id"];
  return {
    requestId: typeof incomingId === "string" && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
    ip: clientIp(req, config.trustProxy),
    userAgent: req.headers["user-agent"]?.slice(0, 512) ?? null,
  };
}

/** The request target, or null for an absolute-form target that is no URL. */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? "/", "http://internal");
  } catch {
    return null;
  }
}

/** The headers every routed answer carries. */
function setCommonHeaders(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  res.setHeader("x-request-id", requestId);
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("referrer-policy", "no-referrer");
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-security-policy", API_CSP);
  if ((req.socket as TLSSocket).encrypted) res.setHeader("strict-transport-security", "max-age=31536000");
}

/** The access log line, written when the answer is finished. */
function logWhenFinished(
  log: Services["log"],
  req: IncomingMessage,
  res: ServerResponse,
  line: { requestId: string; pathname: string; started: bigint },
): void {
  res.on("finish", () => {
    // The path only: area B carries tokens in query strings, which must never reach a log.
    log.info(
      {
        requestId: line.requestId,
        method: req.method,
        path: line.pathname,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - line.started) / 1e6,
      },
      "request",
    );
  });
}

/** `/healthz`, `/readyz`, `/openapi.json`, `/docs` and `/metrics`, answered here; false for any other path. */
async function serveOwnPath(
  services: Services,
  pathname: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const { config } = services;
  if (pathname === "/metrics") return serveMetricsOnApi(config, req, res);
  if (pathname === "/healthz") {
    sendJson(res, 200, { ok: true });
    return true;
  }
  if (pathname === "/readyz") {
    const ready = await services.database.ready();
    const ok = ready.reachable && ready.migrationsCurrent;
    sendJson(res, ok ? 200 : 503, {
      ok,
      database: ready.reachable ? "reachable" : "unreachable",
      migrationsCurrent: ready.migrationsCurrent,
    });
    return true;
  }
  if (pathname === "/openapi.json") {
    sendJson(res, 200, openApiDocument(config.publicApiUrl));
    return true;
  }
  if (pathname === "/docs" || pathname === "/docs/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP });
    res.end(renderDocsPage(config.publicApiUrl));
    return true;
  }
  return false;
}

/**
 * The refusals before the route table, true when the request was refused: a cross-site request to
 * the admin console's file routes (they authenticate by the staff cookie), and area A over plain HTTP.
 */
function refusedBeforeTable(config: Services["config"], rest: RestRequest): boolean {
  const { req, res, url, request, secure } = rest;
  if (url.pathname.startsWith("/staff/") && isCrossSiteRequest(req, config)) {
    answerThenClose(req, res, config.closeLingerMs);
    sendError(res, "A", new AppError("forbidden", "cross-site requests are refused"), request.requestId);
    return true;
  }
  if (isAreaAPath(url.pathname) && !secure) {
    // No redirect: by now the bearer token has already crossed the wire in clear.
    sendError(res, "A", new AppError("https_required", "this endpoint is served over HTTPS only"), request.requestId);
    return true;
  }
  return false;
}

/** tRPC's handler under `/trpc/`: the CSRF refusal, then the context of the request's credentials. */
function createTrpcHandler(services: Services, requestMeta: WeakMap<IncomingMessage, RequestMeta>) {
  const { config, log } = services;
  return createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: 1024 * 1024,
    // The signing portal sends its queries as POST, so session tokens never sit in a URL.
    allowMethodOverride: true,
    createContext: ({ req, res }) => {
      if (isCrossSiteRequest(req, config))
        throw new TRPCError({ code: "FORBIDDEN", message: "cross-site requests are refused" });
      const cookies = parseCookies(req.headers.cookie);
      return {
        services,
        request: requestMeta.get(req)!,
        bearerToken: bearerToken(req),
        sessionCookie: cookies[STAFF_SESSION_COOKIE],
        pendingSignIn: cookies[PENDING_SIGN_IN_COOKIE],
        ssoLink: cookies[SSO_LINK_COOKIE],
        smsFormAccess: cookies[SMS_FORM_ACCESS_COOKIE],
        smsFormIdentity: cookies[SMS_FORM_IDENTITY_COOKIE],
        formSessionId: typeof req.headers["x-session-id"] === "string" ? req.headers["x-session-id"] : undefined,
        setCookie: (cookie: string) => res.appendHeader("set-cookie", cookie),
      };
    },
    onError: ({ error, req }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") {
        log.error({ err: error.cause ?? error, requestId: requestMeta.get(req)?.requestId }, "trpc procedure failed");
      }
    },
  });
}

/**
 * The one request listener: what every request gets (request id, client address, security
 * headers, the access log, CSRF and HTTPS refusals), health, docs and tRPC, then the route table
 * (`../rest/routes.ts`: the documented API, the console's file routes, FHIR, single sign-on's
 * redirects, signed file URLs).
 */
export function createRequestListener(services: Services): RequestListener {
  const { config, log } = services;
  const requestMeta = new WeakMap<IncomingMessage, RequestMeta>();
  const trpc = createTrpcHandler(services, requestMeta);
  const logRequests = log.isLevelEnabled("info");

  const handle = async (req: IncomingMessage, res: ServerResponse, span: Span) => {
    const started = logRequests ? process.hrtime.bigint() : 0n;
    const request = requestMetaOf(req, config);
    const { requestId } = request;
    requestMeta.set(req, request);
    // Counted under the route template routing finds; a path nothing serves is one label for all.
    const routed: { rest?: RestRequest; route: string } = { route: "(unmatched)" };
    observeWhenFinished(req, res, span, () => routed.rest?.route ?? routed.route);
    const url = requestUrl(req);
    if (!url) {
      // An absolute-form request target that is no URL: nothing to route, and no reason to crash.
      const error = new AppError("invalid_request", "the request target is not a valid URL");
      return sendError(res, "A", error, requestId, { "x-request-id": requestId });
    }
    const secure = isSecureRequest(req, config);
    setCommonHeaders(req, res, requestId);
    // At LOG_LEVEL=warn or above the access log line would be dropped, so no listener is added.
    if (logRequests) logWhenFinished(log, req, res, { requestId, pathname: url.pathname, started });
    const rest: RestRequest = { req, res, url, request, secure };
    routed.rest = rest;

    try {
      if (await serveOwnPath(services, url.pathname, req, res)) return void (routed.route = url.pathname);
      if (url.pathname.startsWith("/trpc/")) {
        routed.route = trpcRouteLabel(url.pathname);
        return void (await trpc(req, res));
      }
      if (refusedBeforeTable(config, rest)) return;
      if (await handleRest(services, rest)) return;
      sendError(res, areaOf(url.pathname), new AppError("not_found", "no such endpoint"), requestId);
    } catch (error) {
      log.error({ err: error, requestId }, "unhandled request error");
      if (!res.headersSent)
        sendError(res, areaOf(url.pathname), new AppError("internal_error", "internal error"), requestId);
      else res.destroy();
    }
  };
  // Each request is a trace (or continues the caller's): its handling runs in the span's context.
  return (req: IncomingMessage, res: ServerResponse) => {
    const traced = startRequestSpan(req.headers, req.method ?? "GET");
    return traced.run(() => handle(req, res, traced.span));
  };
}

/** An HTTP server, or HTTPS when a certificate is configured. */
export function createServer(services: Services): Server {
  const listener = createRequestListener(services);
  const { tls } = services.config;
  const server = tls
    ? createHttpsServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, listener)
    : createHttpServer(listener);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  return server;
}
