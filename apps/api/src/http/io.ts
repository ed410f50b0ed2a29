import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "../core/errors";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** Reads the whole body up to `limit` bytes; 413 beyond it. */
export async function readBody(req: IncomingMessage, limit = MAX_JSON_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new AppError("payload_too_large", `request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new AppError("payload_too_large", `request body exceeds ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A JSON object body; empty means `{}`. Other media types are 415, malformed JSON 400. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req);
  if (raw.length === 0) return {};
  const type = (req.headers["content-type"] ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new AppError("unsupported_media_type", "send the body as application/json");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("invalid_request", "the body is not valid JSON", { field: "body" });
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new AppError("invalid_request", "the body must be a JSON object", { field: "body" });
  }
  return parsed as Record<string, unknown>;
}

/**
 * The fields a plain HTML form posts (`application/x-www-form-urlencoded`; the first value of each
 * name, empty ones dropped as a form's unfilled inputs mean "not given"), or a JSON object body.
 * For console routes a browser reaches by a form, so a download streams to disk natively.
 */
export async function readFormOrJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return readJsonObject(req);
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams((await readBody(req)).toString("utf8")))
    if (!(key in out) && value !== "") out[key] = value;
  return out;
}

/** Query parameters, first value of each name. */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * The request's cookies, first value of each name. A value that is not valid percent-encoding is
 * skipped: a stray cookie from another app on the same host must not break every call.
 */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // malformed escape: ignore this cookie
    }
  }
  return out;
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1];
}
