/**
 * What a route is (routes.ts holds the table: the documented endpoints, the console's file routes
 * from console-routes.ts, and the doors with a protocol of their own; adapter.ts serves it): kept
 * apart so that the lists and the doors depend on it, not on each other.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { StaffProcedure } from "@clinsign/contracts";
import type { OrgContext, RequestMeta, Services } from "../core/context";
import type { AppError } from "../core/errors";
import type { createCaller } from "../trpc/root";
import type { Area } from "./envelopes";
import type { Reply } from "./replies";

export type Caller = ReturnType<typeof createCaller>;
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a route authenticates:
 * - `bearer`: `Authorization: Bearer <token>` (area A);
 * - `orgToken`: `token` + `orgId` in the body, or the query for GET (area B);
 * - `orgTokenOrSession`: the same, or an embed `sessionId` alone (F3, F7–F10, uploads, events);
 * - `public`: no credentials (`/verify`).
 */
export type RouteAuth = "bearer" | "orgToken" | "orgTokenOrSession" | "public";

/** One HTTP request as the route table's doors get it. */
export interface RestRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  request: RequestMeta;
  /** Whether it came over HTTPS (http/server.ts `isSecureRequest`): the FHIR door refuses it otherwise. */
  secure: boolean;
  /** The route template that served it, once the table found one: what metrics count it under. */
  route?: string;
}

/** A documented endpoint: it calls the tRPC procedure that does the work, as /trpc does. */
export interface ApiRoute<I extends z.ZodType = z.ZodType> {
  kind?: "documented";
  /** Interface document number (F2, A6 …), for the docs and the coverage test. */
  ref: string;
  method: Method;
  /** The documented path; `{name}` segments are path parameters. */
  path: string;
  area: Area;
  auth: RouteAuth;
  summary: string;
  /** Longer text for the OpenAPI document (CommonMark), where the summary cannot say enough. */
  description?: string;
  /** Everything besides credentials, from path, query (GET) or body, validated before the call. */
  input: I;
  /** The success body, for the OpenAPI document. */
  output: z.ZodType;
  status: 200 | 201;
  /**
   * How the body arrives (POST/PATCH/DELETE): JSON by default, multipart/form-data with files, or
   * one PDF (`pdf`: raw `application/pdf`, or the first file of a multipart body) as `input.pdf`.
   */
  body?: "json" | "multipart" | "pdf";
  /** The largest `pdf` body read (413 beyond). */
  maxBodyBytes?: number;
  /**
   * Runs before the body is read (a public route's rate limit), so a refused caller costs no
   * upload. What it returns is called when the request ends (a concurrency slot it held).
   */
  admit?(services: Services, request: RequestMeta): Promise<void | (() => void)>;
  /** Path parameters the body must repeat with the same value (A7 `id`). */
  bodyEchoes?: string[];
  /** Media type of a non-JSON success body, for the OpenAPI document. */
  produces?: string;
  /**
   * Error answers beyond those its auth, body and path parameters imply (openapi.ts derives
   * those): status → when. The contract test (contract.test.ts) finds any that is missing.
   */
  errors?: Partial<Record<400 | 403 | 404 | 409 | 413 | 429, string>>;
  /** An answer that is not the error envelope (A9's 409 `{deleted:false, reason}`). */
  otherReply?: { status: number; description: string; body: z.ZodType; example: unknown };
  /** Example request fields (credentials left out) and success body, where the schema's own sample would not do. */
  example?: { request?: Record<string, unknown>; response?: unknown };
  call(caller: Caller, input: z.output<I>): Promise<unknown>;
}

/**
 * An upload the adapter reads for a console route: the file as a multipart part (text parts sent
 * before it are the route's fields), or, where `raw` allows, as the body itself. The declared
 * length is checked before a byte is read and the file counted as it arrives; a refused body is
 * not read further (the answer closes the connection).
 */
export interface UploadBody {
  /** The largest file (413 `tooLarge()` beyond). */
  maxFileBytes: number;
  /** What a multipart body may carry besides the file (framing, the fields before it). */
  multipartOverhead: number;
  /** Raw bodies of these media types are the file itself; anything else but multipart is 415 `refusal`. */
  raw?: { accepts(mediaType: string): boolean; refusal: string };
  tooLarge(): AppError;
  /** The 400 message when the body has no file part. */
  missingFile: string;
}

/** What a console route's `serve` gets besides its input. */
export interface ConsoleDoor {
  services: Services;
  url: URL;
  /** The uploaded file, for routes with `upload`. */
  file: Buffer | undefined;
}

interface ConsoleRouteBase<I extends z.ZodType> {
  kind: "console";
  method: "GET" | "POST";
  /** Errors use area A's envelope. */
  area: "A";
  /**
   * The path; `{name}` segments are path parameters, matched by `params[name]` (a RegExp source,
   * `[^/]+` by default) and passed on undecoded. A path that does not fit is not this route, and
   * a trailing slash is no alias.
   */
  path: string;
  params?: Record<string, string>;
  /** Also answers HEAD (headers only). */
  head?: boolean;
  summary: string;
  /**
   * Validated before `serve`: the query (empty values dropped) and path parameters, or with
   * `jsonField` the JSON of that multipart field (root errors named after it).
   */
  input: I;
  upload?: UploadBody;
  jsonField?: string;
  /**
   * POST only: the input is the body, a plain HTML form's fields or a JSON object (values a
   * request line would carry into proxy logs, such as a patient's identifiers, stay out of it).
   */
  formBody?: true;
}

/**
 * A file route of the admin console (or the public logo it serves), not in the interface
 * document: the staff cookie and the permission-table entry the route stands for (an upload is
 * that procedure's change, a download its read), area A's error envelope, and a reply that is a
 * file, a stream or JSON. Unknown methods on its path are 404, as any unknown path.
 */
export type ConsoleRoute<I extends z.ZodType = z.ZodType> = ConsoleRouteBase<I> &
  (
    | { auth: "public"; serve(door: ConsoleDoor, input: z.output<I>): Promise<Reply> }
    | {
        auth: "staffCookie";
        procedure: StaffProcedure;
        serve(door: ConsoleDoor & { ctx: OrgContext }, input: z.output<I>): Promise<Reply>;
      }
  );

/**
 * A door with a protocol of its own, served by its module under its path: FHIR R4's REST API
 * (rest/fhir.ts), single sign-on's browser redirects (rest/sso-redirects.ts) and the signed,
 * expiring URLs of private uploads (rest/signed-files.ts). Each renders its own answers (an
 * OperationOutcome, a redirect to the login page, area B's envelope). Not in the OpenAPI document.
 */
export interface MountedRoute {
  kind: "fhir" | "redirect" | "signedFile";
  /** The path; with `prefix`, also every path below it (`path/…`). */
  path: string;
  prefix?: true;
  /** The methods it answers (another is no such endpoint); absent: every method, the door answering 405 itself. */
  methods?: Method[];
  summary: string;
  serve(services: Services, rest: RestRequest): Promise<void>;
}

export type Route = ApiRoute | ConsoleRoute | MountedRoute;
