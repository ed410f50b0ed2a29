/**
 * The route table's console half (`console-routes.ts`): a console file route served once
 * `handleRest` (adapter.ts) matched it — the staff cookie and permission, the upload with its
 * caps, the input parsed once, the reply — and `BodyState`, how far a request body got, which
 * both halves keep for the error answer.
 */
import type { IncomingMessage } from "node:http";
import type { Services } from "../core/context";
import { AppError } from "../core/errors";
import { assertStorableInput } from "../core/storable-text";
import { STAFF_SESSION_COOKIE } from "../core/identity/cookies";
import { parseCookies, readBody, readFormOrJsonObject } from "../wire/io";
import { staffRouteContext } from "../trpc/trpc";
import { openMultipart, type MultipartBody } from "./multipart";
import { sendReply, type Reply } from "./replies";
import type { ConsoleRoute, RestRequest, UploadBody } from "./routes";
import { parseInput } from "./validation";

/** How far a request body got, for the error answer: a body we stopped reading closes the connection. */
export interface BodyState {
  /** Set while a body the route reads has not been read to its end. */
  unread: boolean;
  multipart?: MultipartBody;
}

/**
 * A console route: the staff cookie and the permission table before a byte of the body is read,
 * then the upload (declared length, media type, the file counted as it arrives), the input, and
 * the route's reply.
 */
export async function serveConsoleRoute(
  services: Services,
  rest: RestRequest,
  route: ConsoleRoute,
  pathParams: Record<string, string>,
  state: BodyState,
): Promise<void> {
  const { req, res, url, request } = rest;
  if (route.upload) state.unread = true;
  let serve: (door: ConsoleDoorOf, input: unknown) => Promise<Reply>;
  if (route.auth === "staffCookie") {
    const sessionCookie = parseCookies(req.headers.cookie)[STAFF_SESSION_COOKIE];
    const ctx = await staffRouteContext({ services, request, sessionCookie }, route.procedure);
    serve = (door, input) => route.serve({ ...door, ctx }, input);
  } else serve = (door, input) => route.serve(door, input);
  const upload = route.upload && (await openUpload(req, route.upload, state));
  const input = route.jsonField
    ? parseJsonField(route, route.jsonField, upload?.fields ?? {})
    : route.formBody
      ? parseFormBody(route, await readFormOrJsonObject(req))
      : parseConsoleQuery(route, url, pathParams);
  const file = await upload?.file();
  await sendReply(res, await serve({ services, url, file }, input), req);
}

type ConsoleDoorOf = Parameters<Extract<ConsoleRoute, { auth: "public" }>["serve"]>[0];

/** A console route's body fields (`formBody`), parsed once. */
function parseFormBody(route: ConsoleRoute, fields: Record<string, unknown>): unknown {
  assertStorableInput(fields);
  return parseInput(route.input, fields, "body");
}

/** The query (empty values dropped, the last of a repeated name) and the path parameters, parsed once. */
function parseConsoleQuery(route: ConsoleRoute, url: URL, pathParams: Record<string, string>): unknown {
  const raw = { ...Object.fromEntries([...url.searchParams].filter(([, value]) => value !== "")), ...pathParams };
  assertStorableInput(raw);
  return parseInput(route.input, raw, "query");
}

/** A multipart text field holding the route's input as JSON (the document upload's `metadata`). */
function parseJsonField(route: ConsoleRoute, name: string, fields: Record<string, string>): unknown {
  const raw = fields[name];
  if (raw === undefined)
    throw new AppError("invalid_request", `${name}: is required (a JSON part sent before the file)`, { field: name });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new AppError("invalid_request", `${name}: is not valid JSON`, { field: name });
  }
  assertStorableInput(value);
  return parseInput(route.input, value, name);
}

/** Reads at most `limit` bytes of a stream, refusing (and stopping it) as soon as it passes them. */
async function readCapped(
  stream: AsyncIterable<Buffer>,
  limit: number,
  stop: () => void,
  tooLarge: () => AppError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) {
      stop();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Opens a console upload: 415 for a media type the route does not take, 413 for a declared
 * length beyond its cap, then the multipart text fields (sent before the file); `file()` reads
 * the file itself.
 */
async function openUpload(
  req: IncomingMessage,
  spec: UploadBody,
  state: BodyState,
): Promise<{ fields: Record<string, string>; file(): Promise<Buffer> }> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const raw = type !== "multipart/form-data" && spec.raw !== undefined;
  if (raw && !spec.raw!.accepts(type)) throw new AppError("unsupported_media_type", spec.raw!.refusal);
  const cap = raw ? spec.maxFileBytes : spec.maxFileBytes + spec.multipartOverhead;
  if (Number(req.headers["content-length"] ?? 0) > cap) throw spec.tooLarge();
  if (raw) {
    return {
      fields: {},
      file: async () => {
        const bytes = await readBody(req, spec.maxFileBytes, spec.tooLarge);
        state.unread = false;
        return bytes;
      },
    };
  }
  const body = await openMultipart(req);
  state.multipart = body;
  return {
    fields: body.fields,
    file: async () => {
      for await (const part of body.files)
        return readCapped(part.stream, spec.maxFileBytes, () => part.stream.destroy(), spec.tooLarge);
      throw new AppError("invalid_request", spec.missingFile, { field: "file" });
    },
  };
}
