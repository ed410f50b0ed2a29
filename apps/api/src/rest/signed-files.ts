import type { Services } from "../core/context";
import { AppError } from "../core/errors";
import { publicContext } from "../core/identity/public-context";
import { openSignedFile } from "../core/public/file-links";
import { sendJson } from "../wire/io";
import { renderError, toAppError } from "./envelopes";
import type { RestRequest } from "./route-types";
import { sendStoredFile } from "./stored-file";
import { decodePath } from "./validation";

export const SIGNED_FILES_PATH = "/api/embed/files";

/** GET /api/embed/files/<orgId>/<key>?exp&sig: a private upload behind its signed, expiring URL (ranges; S3_DOWNLOADS=presigned redirects). */
export async function serveSignedFile(services: Services, rest: RestRequest): Promise<void> {
  const { req, res, url, request } = rest;
  try {
    const path = decodePath(url.pathname.slice(`${SIGNED_FILES_PATH}/`.length), "path");
    const file = await openSignedFile(publicContext(services, request), {
      path,
      exp: url.searchParams.get("exp"),
      sig: url.searchParams.get("sig"),
    });
    await sendStoredFile(services.storage, req, res, {
      key: file.storageKey,
      filename: file.name,
      contentType: file.type,
    });
  } catch (error) {
    const app = toAppError(error) ?? new AppError("internal_error", "internal error");
    if (app.code === "internal_error")
      services.log.error({ err: error, requestId: request.requestId }, "file download failed");
    const { status, body } = renderError("B", app, request.requestId);
    sendJson(res, status, body);
  }
}
