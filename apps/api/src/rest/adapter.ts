import type { IncomingMessage, ServerResponse } from "node:http";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import type { RequestMeta, Services } from "../core/context";
import { AppError } from "../core/errors";
import { authenticateEmbedSession } from "../core/credentials/embed-sessions";
import { authenticateSmsRecipient, SMS_FORM_ACCESS_COOKIE } from "../core/credentials/sms-links";
import { assertStorableInput } from "../core/storable-text";
import { openSignedFile } from "../core/uploads/uploads";
import { authenticateApiToken } from "../core/credentials/api-tokens";
import { bearerToken, MAX_JSON_BODY_BYTES, parseCookies, queryObject, readJsonObject, sendJson } from "../http/io";
import { createCaller } from "../trpc/root";
import type { Principal } from "../trpc/trpc";
import { renderError, type Area } from "./envelopes";
import { openMultipart, type MultipartBody } from "./multipart";
import { readPdfBody } from "./pdf-body";
import { RestReply, routes, type Route } from "./routes";
import { parseInput } from "./validation";

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
}

function compile(route: Route): CompiledRoute {
  const params: string[] = [];
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return "([^/]+)";
  });
  return { route, pattern: new RegExp(`^${source}/?$`), params };
}

// Literal paths before parameterised ones, so `/x/completed` never reads as `/x/{id}`.
const compiled = routes.map(compile).sort((a, b) => a.params.length - b.params.length);

const AREA_A_PATH = /^\/(documents|signature-requests|assignments|design)(\/|$)/;

/** Paths of the signature area, served over HTTPS only. */
export const isAreaAPath = (pathname: string) => AREA_A_PATH.test(pathname);

/** The area a path belongs to, which decides the error envelope. */
export function areaOf(pathname: string): Area {
  return pathname.startsWith("/api/") ? "B" : "A";
}

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (error.cause instanceof ZodError) {
      const fieldErrors = error.cause.issues.map((i) => ({ key: i.path.join(".") || "body", message: i.message }));
      const first = fieldErrors[0]!;
      return new AppError("invalid_request", `${first.key}: ${first.message}`, { field: first.key }, fieldErrors);
    }
  }
  return undefined;
}

export interface RestRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  request: RequestMeta;
}

/** A percent-decoded path segment; a malformed escape or a NUL is the caller's mistake, not a 500. */
function decodePath(raw: string, field: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new AppError("invalid_request", "the path is not valid percent-encoding", { field: "path" });
  }
  assertStorableInput(decoded, [field]);
  return decoded;
}

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function authenticate(
  services: Services,
  route: Route,
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
async function authenticatePortal(services: Services, req: IncomingMessage): Promise<Principal> {
  const accessToken = parseCookies(req.headers.cookie)[SMS_FORM_ACCESS_COOKIE];
  const linkToken = String(req.headers["x-portal-link"]);
  if (!accessToken || linkToken.length > 200) throw new AppError("unauthorized", "please identify again");
  return authenticateSmsRecipient(services, { accessToken, linkToken });
}

/**
 * Area A: a body field named like a path parameter must repeat its value (A7: "the body's id
 * must equal the path's id"), and routes listing it in `bodyEchoes` require it.
 */
function checkBodyEchoes(route: Route, body: Record<string, unknown>, pathParams: Record<string, string>) {
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

function sendReply(res: ServerResponse, reply: RestReply) {
  if (!reply.contentType) return sendJson(res, reply.status, reply.body, reply.headers);
  const body = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(String(reply.body));
  res.writeHead(reply.status, { "content-type": reply.contentType, "content-length": body.length, ...reply.headers });
  res.end(body);
}

/**
 * Serves a documented REST path, or returns false when the path is not one. Errors are rendered
 * in the envelope of the path's area; anything unexpected is a 500 with only the request id.
 */
export async function handleRest(services: Services, rest: RestRequest): Promise<boolean> {
  const { req, res, url, request } = rest;
  const method = req.method ?? "GET";
  const candidates = compiled.filter((c) => c.pattern.test(url.pathname));
  if (candidates.length === 0) return false;
  const area = candidates[0]!.route.area;
  let multipart: MultipartBody | undefined;
  /** A body we stopped reading (too large): answer, then close the connection. */
  let bodyUnread = false;
  try {
    const match = candidates.find((c) => c.route.method === method);
    if (!match) {
      const allow = [...new Set(candidates.map((c) => c.route.method))].sort().join(", ");
      const { body } = renderError(
        area,
        new AppError("invalid_request", `method ${method} is not allowed here`),
        request.requestId,
      );
      sendJson(res, 405, body, { allow });
      return true;
    }
    const { route } = match;
    const values = match.pattern.exec(url.pathname)!;
    const pathParams = Object.fromEntries(match.params.map((name, i) => [name, decodePath(values[i + 1]!, name)]));
    let fields: Record<string, unknown>;
    let principal: Principal | undefined;
    await route.admit?.(services, request);
    if (route.body === "pdf") {
      bodyUnread = true;
      const body = await readPdfBody(req, route.maxBodyBytes ?? MAX_JSON_BODY_BYTES);
      multipart = body.multipart;
      bodyUnread = false;
      fields = { ...queryObject(url), pdf: body.bytes };
    } else if (route.body === "multipart") {
      // Uploads are large: credentials in the query or headers are checked before a byte of the
      // body is read, and otherwise those in the text fields that precede the first file part.
      const early: Record<string, string> = {
        ...queryObject(url),
        ...(typeof req.headers["x-session-id"] === "string" && { sessionId: req.headers["x-session-id"] }),
      };
      if (early.sessionId !== undefined || early.token !== undefined)
        principal = await authenticate(services, route, req, early);
      else if (typeof req.headers["x-portal-link"] === "string") principal = await authenticatePortal(services, req);
      multipart = await openMultipart(req);
      fields = { ...early, ...multipart.fields };
    } else fields = method === "GET" || method === "HEAD" ? queryObject(url) : await readJsonObject(req);
    if (route.auth !== "public") principal ??= await authenticate(services, route, req, fields);
    const { token: _token, orgId: _orgId, sessionId: _sessionId, ...inputFields } = fields;
    checkBodyEchoes(route, inputFields, pathParams);
    const input = parseInput(route.input, {
      ...inputFields,
      ...pathParams,
      ...(multipart && route.body === "multipart" && { files: multipart.files }),
    });
    const caller = createCaller({ services, request, principal, setCookie: () => {} });
    const result = await route.call(caller, input);
    if (result instanceof RestReply) sendReply(res, result);
    else sendJson(res, route.status, result);
  } catch (error) {
    if (bodyUnread || (req.headers["content-type"]?.toLowerCase().startsWith("multipart/") && !multipart?.finished)) {
      // The rest of an upload we refused is not read: answer, then close the connection.
      multipart?.abort();
      res.setHeader("connection", "close");
    }
    const app = toAppError(error);
    if (!app) {
      services.log.error({ err: error, requestId: request.requestId }, "request failed");
      const { status, body } = renderError(area, new AppError("internal_error", "internal error"), request.requestId);
      sendJson(res, status, body);
      return true;
    }
    const { status, body } = renderError(area, app, request.requestId);
    const retryAfter = app.details.retryAfterSeconds;
    sendJson(res, status, body, retryAfter ? { "retry-after": String(retryAfter) } : {});
  }
  return true;
}

/** GET /api/embed/files/<orgId>/<key>?exp&sig: a private upload behind its signed, expiring URL. */
export async function serveSignedFile(services: Services, rest: RestRequest): Promise<void> {
  const { res, url, request } = rest;
  try {
    const path = decodePath(url.pathname.slice("/api/embed/files/".length), "path");
    const file = await openSignedFile(services, path, url.searchParams.get("exp"), url.searchParams.get("sig"));
    res.writeHead(200, {
      "content-type": file.type,
      "content-length": file.bytes.length,
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "cache-control": "private, no-store",
    });
    res.end(file.bytes);
  } catch (error) {
    const app = toAppError(error) ?? new AppError("internal_error", "internal error");
    if (app.code === "internal_error")
      services.log.error({ err: error, requestId: request.requestId }, "file download failed");
    const { status, body } = renderError("B", app, request.requestId);
    sendJson(res, status, body);
  }
}
