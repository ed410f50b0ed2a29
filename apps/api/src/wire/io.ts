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

/**
 * Reads the whole body up to `limit` bytes; `tooLarge` (413) beyond it, declared or sent. The rest
 * is left unread and the request open (ending an async iteration over it early would destroy the
 * socket before the 413 is written): the error answer closes the connection (`answerThenClose`).
 */
export function readBody(
  req: IncomingMessage,
  limit = MAX_JSON_BODY_BYTES,
  tooLarge = () => new AppError("payload_too_large", `request body exceeds ${limit} bytes`),
): Promise<Buffer> {
  if (Number(req.headers["content-length"] ?? 0) > limit) return Promise.reject(tooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onClose);
      req.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    // The client went away mid-body: nobody reads the answer, but the request must still end.
    const onClose = () => {
      stop();
      reject(new AppError("invalid_request", "the request body ended early", { field: "body" }));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onClose);
  });
}

/**
 * Makes the answer about to be sent the last on its connection, closed so the client can read it:
 * for a request whose body was refused before it was all read (413, 401 before an upload). Node
 * ends a `Connection: close` exchange with `socket.destroySoon()`: as soon as the answer is out,
 * the socket is closed, and closing it while body bytes are still arriving makes the kernel answer
 * them with a reset, which can discard the answer before a client still sending has read it
 * (EPIPE or ECONNRESET instead of the 413). So only our half is closed after the answer; what the
 * client still sends is read and dropped until it closes its half, or `lingerMs` pass.
 */
export function answerThenClose(req: IncomingMessage, res: ServerResponse, lingerMs: number): void {
  res.setHeader("connection", "close");
  const socket = req.socket;
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const linger = setTimeout(() => socket.destroy(), lingerMs);
    linger.unref();
    socket.once("close", () => clearTimeout(linger));
    // The parser hands the rest of the body to the request, which Node drops once answered.
    req.resume();
  };
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
