import type { IncomingMessage } from "node:http";
import type { Services } from "../core/context";
import { AppError } from "../core/errors";
import { authenticateEmbedSession } from "../core/credentials/embed-sessions";
import { authenticateSmsRecipient, SMS_FORM_ACCESS_COOKIE } from "../core/credentials/sms-links";
import { authenticateApiToken } from "../core/credentials/api-tokens";
import {
  answerThenClose,
  bearerToken,
  MAX_JSON_BODY_BYTES,
  parseCookies,
  queryObject,
  readJsonObject,
  sendJson,
} from "../wire/io";
import { createCaller } from "../trpc/root";
import type { Principal } from "../trpc/trpc";
import { serveConsoleRoute, type BodyState } from "./console-adapter";
import { renderError, sendError, toAppError, type Area } from "./envelopes";
import { openMultipart } from "./multipart";
import { readPdfBody } from "./pdf-body";
import { RestReply, sendReply, StreamReply } from "./replies";
import { routes, type ApiRoute, type ConsoleRoute, type MountedRoute, type RestRequest, type Route } from "./routes";
import { decodePath, parseInput } from "./validation";

/** The routes the adapter reads itself: documented endpoints and console file routes. */
type TableRoute = ApiRoute | ConsoleRoute;

interface CompiledRoute {
  route: TableRoute;
  pattern: RegExp;
  params: string[];
}

function compile(route: TableRoute): CompiledRoute {
  const params: string[] = [];
  const isConsole = route.kind === "console";
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return `(${(isConsole && route.params?.[name]) || "[^/]+"})`;
  });
  // A documented path may end in a slash; a console path is exactly what the web app sends.
  return { route, pattern: new RegExp(`^${source}${isConsole ? "" : "/?"}$`), params };
}

// The table's own kinds are fixed; every other kind is a mounted door, so a new one needs no change here.
const isTableRoute = (route: Route): route is TableRoute =>
  route.kind === undefined || route.kind === "documented" || route.kind === "console";
const mounted = routes.filter((route): route is MountedRoute => !isTableRoute(route));
// Literal paths before parameterised ones, so `/x/completed` never reads as `/x/{id}`.
const compiled = routes
  .filter(isTableRoute)
  .map(compile)
  .sort((a, b) => a.params.length - b.params.length);

/** The mounted door serving this path and method, if any. */
function mountFor(pathname: string, method: string): MountedRoute | undefined {
  return mounted.find(
    (route) =>
      (pathname === route.path || (route.prefix && pathname.startsWith(`${route.path}/`))) &&
      (!route.methods || route.methods.some((allowed) => allowed === method)),
  );
}

const AREA_A_PATH = /^\/(documents|signature-requests|assignments|design)(\/|$)/;

/** Paths of the signature area, served over HTTPS only. */
export const isAreaAPath = (pathname: string) => AREA_A_PATH.test(pathname);

/** The area a path belongs to, which decides the error envelope. */
export function areaOf(pathname: string): Area {
  return pathname.startsWith("/api/") ? "B" : "A";
}

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function authenticate(
  services: Services,
  route: ApiRoute,
  req: IncomingMessage,
  fields: Record<string, unknown>,
): Promise<Principal> {
  if (route.auth === "bearer") {
    return { kind: "token", ...(await authenticateApiToken(services.db, bearerToken(req))) };
  }
  const { token, orgId, sessionId } = fields;
  if (route.auth === "orgTokenOrSession" && sessionId !== undefined && token === undefined) {
    if (typeof sessionId !== "string") throw new AppError("unauthorized", "invalid or expired session");
    return { kind: "embed_session", ...(await authenticateEmbedSession(services.db, sessionId)) };
  }
  if (token === undefined && bearerToken(req) !== undefined) {
    // `Authorization: Bearer` as in area A: the token names its organization; an orgId sent
    // beside it must be that one. A `token` field, when sent, is what counts, as before.
    if (orgId !== undefined && (typeof orgId !== "string" || !ORG_ID.test(orgId)))
      throw new AppError("unauthorized", "invalid API token for this orgId");
    const organizationId = typeof orgId === "string" ? orgId.toLowerCase() : undefined;
    return { kind: "token", ...(await authenticateApiToken(services.db, bearerToken(req), organizationId)) };
  }
  if (typeof token !== "string" || typeof orgId !== "string") {
    throw new AppError(
      "unauthorized",
      route.auth === "orgTokenOrSession"
        ? "sessionId, or token and orgId, are required"
        : "token and orgId are required",
    );
  }
  if (!ORG_ID.test(orgId)) throw new AppError("unauthorized", "invalid API token for this orgId");
  return { kind: "token", ...(await authenticateApiToken(services.db, token, orgId.toLowerCase())) };
}

/** An SMS portal recipient's upload: the portal's access cookie plus the link it belongs to. */
async function authenticateSmsLink(services: Services, req: IncomingMessage): Promise<Principal> {
  const accessToken = parseCookies(req.headers.cookie)[SMS_FORM_ACCESS_COOKIE];
  const linkToken = String(req.headers["x-portal-link"]);
  if (!accessToken || linkToken.length > 200) throw new AppError("unauthorized", "please identify again");
  return authenticateSmsRecipient(services, { accessToken, linkToken });
}

/**
 * Area A: a body field named like a path parameter must repeat its value (A7: "the body's id
 * must equal the path's id"), and routes listing it in `bodyEchoes` require it.
 */
function checkBodyEchoes(route: ApiRoute, body: Record<string, unknown>, pathParams: Record<string, string>) {
  if (route.area !== "A") return;
  for (const [name, value] of Object.entries(pathParams)) {
    if (body[name] === undefined) {
      if (route.bodyEchoes?.includes(name))
        throw new AppError("invalid_request", `${name}: is required`, { field: name });
    } else if (body[name] !== value) {
      throw new AppError("invalid_request", `${name}: must equal the ${name} in the path`, { field: name });
    }
  }
}

/** Whether `route` answers `method` (a console route's `head` adds HEAD to its GET). */
const answers = (route: TableRoute, method: string) =>
  route.method === method || (method === "HEAD" && route.kind === "console" && route.method === "GET" && !!route.head);

/**
 * Serves a path of the route table, or returns false when the path is not one. A mounted door
 * answers in its own way; otherwise errors are rendered in the envelope of the path's area, and
 * anything unexpected is a 500 with only the request id.
 */
export async function handleRest(services: Services, rest: RestRequest): Promise<boolean> {
  const { req, res, url, request } = rest;
  const method = req.method ?? "GET";
  const mount = mountFor(url.pathname, method);
  if (mount) {
    rest.route = mount.prefix ? `${mount.path}/*` : mount.path;
    await mount.serve(services, rest);
    return true;
  }
  const candidates = compiled.filter((c) => c.pattern.test(url.pathname));
  if (candidates.length === 0) return false;
  const area = candidates[0]!.route.area;
  const match = candidates.find((c) => answers(c.route, method));
  rest.route = (match ?? candidates[0]!).route.path;
  if (!match) {
    if (candidates[0]!.route.kind === "console") {
      // The console's paths are no API: another method is just no such endpoint.
      sendError(res, area, new AppError("not_found", "no such endpoint"), request.requestId);
      return true;
    }
    const allow = [...new Set(candidates.map((c) => c.route.method))].sort().join(", ");
    const { body } = renderError(
      area,
      new AppError("invalid_request", `method ${method} is not allowed here`),
      request.requestId,
    );
    sendJson(res, 405, body, { allow });
    return true;
  }
  const values = match.pattern.exec(url.pathname)!;
  const rawParams = match.params.map((name, i) => [name, values[i + 1]!] as const);
  const body: BodyState = { unread: false };
  try {
    const { route } = match;
    if (route.kind === "console") await serveConsoleRoute(services, rest, route, Object.fromEntries(rawParams), body);
    else {
      const pathParams = Object.fromEntries(rawParams.map(([name, raw]) => [name, decodePath(raw, name)]));
      await serveApiRoute(services, rest, route, pathParams, body);
    }
  } catch (error) {
    if (res.headersSent) {
      // A stream that failed half-way: all the client can see is an incomplete transfer.
      services.log.error({ err: error, requestId: request.requestId }, "reply failed after its headers");
      res.destroy();
      return true;
    }
    const multipartType = req.headers["content-type"]?.toLowerCase().startsWith("multipart/") ?? false;
    if ((body.unread && !body.multipart?.finished) || (multipartType && !body.multipart?.finished) || !req.complete) {
      // The rest of a body we refused is not read: answer, then close the connection.
      body.multipart?.abort();
      answerThenClose(req, res, services.config.closeLingerMs);
    }
    const app = toAppError(error);
    if (!app) {
      services.log.error({ err: error, requestId: request.requestId }, "request failed");
      sendError(res, area, new AppError("internal_error", "internal error"), request.requestId);
      return true;
    }
    const retryAfter = app.details.retryAfterSeconds;
    sendError(res, area, app, request.requestId, retryAfter ? { "retry-after": String(retryAfter) } : {});
  }
  return true;
}

/** A documented endpoint: credentials of its area, the body, the input, then its tRPC procedure. */
async function serveApiRoute(
  services: Services,
  rest: RestRequest,
  route: ApiRoute,
  pathParams: Record<string, string>,
  state: BodyState,
): Promise<void> {
  const admitted = await route.admit?.(services, rest.request);
  try {
    await serveAdmittedApiRoute(services, rest, route, pathParams, state);
  } finally {
    if (typeof admitted === "function") admitted();
  }
}

/** serveApiRoute once admitted: the rest of the request. */
async function serveAdmittedApiRoute(
  services: Services,
  rest: RestRequest,
  route: ApiRoute,
  pathParams: Record<string, string>,
  state: BodyState,
): Promise<void> {
  const { req, res, url, request } = rest;
  const method = req.method ?? "GET";
  let fields: Record<string, unknown>;
  let principal: Principal | undefined;
  if (route.body === "pdf") {
    state.unread = true;
    const body = await readPdfBody(req, route.maxBodyBytes ?? MAX_JSON_BODY_BYTES);
    state.multipart = body.multipart;
    state.unread = false;
    fields = { ...queryObject(url), pdf: body.bytes };
  } else if (route.body === "multipart") {
    // Uploads are large: credentials in the query or headers are checked before a byte of the
    // body is read, and otherwise those in the text fields that precede the first file part.
    const early: Record<string, string> = {
      ...queryObject(url),
      ...(typeof req.headers["x-session-id"] === "string" && { sessionId: req.headers["x-session-id"] }),
    };
    if (early.sessionId !== undefined || early.token !== undefined || bearerToken(req) !== undefined)
      principal = await authenticate(services, route, req, early);
    else if (typeof req.headers["x-portal-link"] === "string") principal = await authenticateSmsLink(services, req);
    state.multipart = await openMultipart(req);
    fields = { ...early, ...state.multipart.fields };
    // Credentials checked before the body name their organization: an orgId among the text fields
    // must be that one (a Bearer token of one organization never uploads as another's, nor says 404).
    const sentOrgId = state.multipart.fields.orgId;
    if (principal && sentOrgId !== undefined && String(sentOrgId).toLowerCase() !== principal.organizationId)
      throw new AppError("unauthorized", "invalid API token for this orgId");
  } else fields = method === "GET" || method === "HEAD" ? queryObject(url) : await readJsonObject(req);
  if (route.auth !== "public") principal ??= await authenticate(services, route, req, fields);
  const { token: _token, orgId: _orgId, sessionId: _sessionId, ...inputFields } = fields;
  checkBodyEchoes(route, inputFields, pathParams);
  const input = parseInput(route.input, {
    ...inputFields,
    ...pathParams,
    ...(state.multipart && route.body === "multipart" && { files: state.multipart.files }),
  });
  const caller = createCaller({ services, request, principal, setCookie: () => {} });
  const result = await route.call(caller, input);
  await sendReply(
    res,
    result instanceof RestReply || result instanceof StreamReply ? result : new RestReply(route.status, result),
  );
}
