import type { IncomingMessage, ServerResponse } from "node:http";
import { LOGO_MAX_BYTES } from "@clinsign/contracts";
import type { RequestMeta, Services } from "../core/context";
import { LOGO_PATH_PREFIX, logoTooLarge, readLogo, storeLogo } from "../core/branding/logos";
import { AppError } from "../core/errors";
import { SESSION_COOKIE } from "../core/staff/staff";
import { renderError } from "../rest/envelopes";
import { openMultipart, type MultipartBody } from "../rest/multipart";
import { staffRouteContext } from "../trpc/trpc";
import { parseCookies, sendJson } from "./io";

/**
 * Branding logos:
 * - `POST /staff/branding/logo` (staff cookie; cross-site POSTs are refused by the listener for
 *   all of /staff/*): the image as the raw body (`Content-Type: image/…`) or as the `file` part
 *   of multipart/form-data. At most LOGO_MAX_BYTES, counted while the body arrives; a declared
 *   larger body is refused before a byte is read. Answers 201 `{logoUrl, contentType, size}`.
 * - `GET /branding/logos/<orgId>/<yyyymm>/<random>`: public (the portal shows it to patients),
 *   immutable, with a policy that keeps an SVG from doing anything even when opened directly.
 * Errors use area A's envelope.
 */

export const LOGO_UPLOAD_PATH = "/staff/branding/logo";
/** The logo plus what multipart framing adds. */
const MAX_LOGO_REQUEST_BYTES = LOGO_MAX_BYTES + 16 * 1024;
const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** Reads at most `limit` bytes of a stream, refusing (and stopping) as soon as it passes it. */
async function readCapped(stream: AsyncIterable<Buffer>, limit: number, stop: () => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) {
      stop();
      throw logoTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

async function firstFilePart(body: MultipartBody): Promise<Buffer> {
  for await (const part of body.files) return readCapped(part.stream, LOGO_MAX_BYTES, () => part.stream.destroy());
  throw new AppError("invalid_request", "file: is required (the logo image)", { field: "file" });
}

async function uploadLogo(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  request: RequestMeta,
): Promise<void> {
  // Who is asking is settled before a byte of the body is read.
  const ctx = await staffRouteContext(
    { services, request, sessionCookie: parseCookies(req.headers.cookie)[SESSION_COOKIE] },
    "organization.setDefaultBranding",
  );
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const multipart = type === "multipart/form-data";
  if (!multipart && !type.startsWith("image/") && type !== "application/octet-stream") {
    throw new AppError(
      "unsupported_media_type",
      "send the logo as the body (Content-Type image/png, image/jpeg, image/webp or image/svg+xml) or as multipart/form-data",
    );
  }
  if (Number(req.headers["content-length"] ?? 0) > (multipart ? MAX_LOGO_REQUEST_BYTES : LOGO_MAX_BYTES))
    throw logoTooLarge();
  let body: MultipartBody | undefined;
  let finished = false;
  try {
    let bytes: Buffer;
    if (multipart) {
      body = await openMultipart(req);
      bytes = await firstFilePart(body);
      finished = body.finished;
    } else {
      bytes = await readCapped(req, LOGO_MAX_BYTES, () => req.pause());
      finished = true;
    }
    sendJson(res, 201, await storeLogo(ctx, bytes));
  } catch (error) {
    if (!finished && !(body?.finished ?? false)) {
      // What we refused is not read any further: answer, then close the connection.
      body?.abort();
      res.setHeader("connection", "close");
    }
    throw error;
  }
}

async function serveLogo(services: Services, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") throw new AppError("not_found", "no such endpoint");
  const logo = await readLogo(services, url.pathname);
  if (!logo) throw new AppError("not_found", "logo not found");
  res.writeHead(200, {
    "content-type": logo.type,
    "content-length": String(logo.bytes.length),
    "x-content-type-options": "nosniff",
    "content-security-policy": LOGO_CSP,
    // A logo's path never names other bytes: each upload is a new file.
    "cache-control": "public, max-age=31536000, immutable",
    // The web app's pages load it from their own origin; other sites may embed it as an image.
    "cross-origin-resource-policy": "cross-origin",
  });
  res.end(req.method === "HEAD" ? undefined : logo.bytes);
}

/** Serves the logo routes; false when the path is not one of them. */
export async function handleBrandingLogos(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestMeta,
): Promise<boolean> {
  const upload = url.pathname === LOGO_UPLOAD_PATH;
  if (!upload && !url.pathname.startsWith(LOGO_PATH_PREFIX)) return false;
  try {
    if (upload) {
      if (req.method !== "POST") throw new AppError("not_found", "no such endpoint");
      await uploadLogo(services, req, res, request);
    } else await serveLogo(services, req, res, url);
  } catch (error) {
    if (!(error instanceof AppError) || res.headersSent) throw error;
    const { status, body } = renderError("A", error, request.requestId);
    sendJson(res, status, body);
  }
  return true;
}
