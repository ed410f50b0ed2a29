import { z } from "zod";
import {
  auditLogEntry,
  createFormRequestInput,
  uploadedFile,
  createdSession,
  createSessionInput,
  draft,
  draftRefInput,
  formEventInput,
  listAuditLogsInput,
  listWebhookEventsInput,
  saveDraftInput,
  savedDraft,
  submitInput,
  submitResult,
  webhookLogEntry,
  webhookTestInput,
  availabilityOutput,
  completedProcess,
  createDocumentInput,
  createDocumentOutput,
  createSignatureRequestInput,
  createSignatureRequestOutput,
  createTemplateInput,
  deleteDocumentOutput,
  designInput,
  designOutput,
  documentIdInput,
  openSignatureLink,
  patientQuery,
  restPatientSelector,
  selectorOfRest,
  restPatientErasureInput,
  restPatientErasureReceipt,
  restReceiptOf,
  setAvailabilityInput,
  signatureRequestIdInput,
  updateAssignmentInput,
  updateAssignmentOutput,
  updateDocumentInput,
  updateDocumentOutput,
  verifySessionInput,
  verifySessionOutput,
  verifyPdfInput,
  verifyResult,
  listTemplatesInput,
  template,
  templateIdentifier,
  templateListItem,
  updateTemplateInput,
} from "@clinsign/contracts";
import { uploadFilesInput } from "../trpc/routers/forms";
import type { StaffProcedure } from "@clinsign/contracts";
import type { OrgContext, RequestMeta, Services } from "../core/context";
import type { AppError } from "../core/errors";
import { consumeVerifyAttempt, MAX_VERIFY_BYTES } from "../core/signatures/verify";
import type { createCaller } from "../trpc/root";
import { consoleRoutes } from "./console-routes";
import type { Area } from "./envelopes";
import { RestReply, StreamReply, type Reply } from "./replies";

export { RestReply } from "./replies";

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

/** A documented endpoint: it calls the tRPC procedure that does the work, as /trpc does. */
export interface ApiRoute<I extends z.ZodType = z.ZodType> {
  kind?: "api";
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
  /** Runs before the body is read (a public route's rate limit), so a refused caller costs no upload. */
  admit?(services: Services, request: RequestMeta): Promise<void>;
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

export type Route = ApiRoute | ConsoleRoute;

const route = <I extends z.ZodType>(r: ApiRoute<I>) => r as unknown as ApiRoute;

/** How A5 relates to the organization default (DESIGN.md), for both /design operations. */
const DESIGN_FALLBACK = [
  "Branding is per institution (`institution_id`, your own identifier). An institution without its own design shows the",
  "organization's **default branding**, which staff set in the admin console (Branding); without either, the portal's own look.",
  "A design set here replaces the default for that institution as a whole: values it leaves out (e.g. no `logo_url`) are not",
  "taken from the default. The SMS form pages and embedded forms show the default unless their request (F1 `institutionId`)",
  "or session (`config.institutionId`) names an institution.",
  "",
  "`logo_url` is an https URL, or the path of a logo uploaded in the admin console (`/branding/logos/…`), which the portal serves",
  "from its own origin. Colours are hex (`#rgb` or `#rrggbb`), `font` one of the listed fonts.",
].join("\n");

// Examples for the OpenAPI document where the schema's own sample would say nothing (the rest are sampled).
const EXAMPLE_ID = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const EXAMPLE_FIELDS = [
  { id: "f1", type: "text", key: "name", label: "Name", required: true },
  { id: "f2", type: "date", key: "birthDate", label: "Geburtsdatum" },
];
const EXAMPLE_LINK = "https://portal.klinik.example/sign/4f7Qk2pX9sLmN0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT";

const ok = z.literal(true);
const NO_ACTIVE_TEMPLATE = "no active template with that identifier (or, without one, none at all)";
const identifierParam = z.object({ identifier: templateIdentifier });

/** The interface document's paths, each wired to the tRPC procedure that does the work. */
export const documentedRoutes: ApiRoute[] = [
  route({
    ref: "F2",
    method: "POST",
    path: "/api/embed/templates",
    area: "B",
    auth: "orgToken",
    summary: "Create a form template",
    input: createTemplateInput,
    output: z.object({ ok, template }),
    status: 201,
    example: { request: { title: "Anamnese", status: "active", schema: { version: 1, fields: EXAMPLE_FIELDS } } },
    call: async (caller, input) => ({ ok: true, template: await caller.templates.create(input) }),
  }),
  route({
    ref: "F3",
    method: "GET",
    path: "/api/embed/template",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Load one active template",
    input: z.object({ templateIdentifier: templateIdentifier.optional() }),
    output: z.object({
      ok,
      template: template.pick({ identifier: true, title: true, description: true, status: true, schema: true }).extend({
        defaultLanguage: template.shape.defaultLanguage.optional(),
        translations: template.shape.translations.optional(),
      }),
    }),
    status: 200,
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => {
      const found = await caller.forms.template({ templateIdentifier: input.templateIdentifier });
      const { identifier, title, description, status, schema, defaultLanguage, translations } = found;
      // A translated template also names its languages (issue 19); others answer as they always did.
      const languages = Object.keys(translations).length > 0 ? { defaultLanguage, translations } : {};
      return { ok: true, template: { identifier, title, description, status, schema, ...languages } };
    },
  }),
  route({
    ref: "F4",
    method: "GET",
    path: "/api/embed/templates",
    area: "B",
    auth: "orgToken",
    summary: "List templates, newest change first",
    input: listTemplatesInput,
    output: z.object({ ok, templates: z.array(templateListItem) }),
    status: 200,
    call: async (caller, input) => ({ ok: true, templates: await caller.templates.list(input) }),
  }),
  route({
    ref: "F5",
    method: "PATCH",
    path: "/api/embed/templates/{identifier}",
    area: "B",
    auth: "orgToken",
    summary: "Change a template; only the fields sent change",
    input: updateTemplateInput,
    output: z.object({ ok, template }),
    status: 200,
    call: async (caller, input) => ({ ok: true, template: await caller.templates.update(input) }),
  }),
  route({
    ref: "F6",
    method: "DELETE",
    path: "/api/embed/templates/{identifier}",
    area: "B",
    auth: "orgToken",
    summary: "Delete a template (past submissions are kept)",
    input: identifierParam,
    output: z.object({ ok }),
    status: 200,
    call: (caller, input) => caller.templates.delete(input),
  }),
  route({
    ref: "B-sessions",
    method: "POST",
    path: "/api/embed/sessions",
    area: "B",
    auth: "orgToken",
    summary: "Create an embed session (sessionId) for one active template, with its config",
    input: createSessionInput,
    output: createdSession.extend({ ok }),
    status: 200,
    example: {
      request: { templateIdentifier: "anamnese-2026", config: { rnummer: "R-2026-0042", draftKey: "case-100231" } },
      response: {
        ok: true,
        sessionId: "es_3q2x9VnL0pT7wR4yZ1bC8dF6gH5jK2mN",
        expiresAt: "2026-03-02T10:30:00.000Z",
        embedUrl: "https://portal.klinik.example/embed/es_3q2x9VnL0pT7wR4yZ1bC8dF6gH5jK2mN",
      },
    },
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => ({ ok: true, ...(await caller.sessions.create(input)) }),
  }),
  route({
    ref: "F7",
    method: "POST",
    path: "/api/embed/drafts",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Save a draft; values are merged into the stored ones",
    input: saveDraftInput,
    output: savedDraft.extend({ ok }),
    status: 200,
    example: { request: { values: { name: "Erika Muster" } } },
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => ({ ok: true, ...(await caller.drafts.save(input)) }),
  }),
  route({
    ref: "F8",
    method: "GET",
    path: "/api/embed/drafts",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Load a draft (null when none exists)",
    input: draftRefInput,
    output: z.object({ ok, draft: draft.nullable() }),
    status: 200,
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => ({ ok: true, draft: await caller.drafts.get(input) }),
  }),
  route({
    ref: "F9",
    method: "DELETE",
    path: "/api/embed/drafts",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Delete a draft",
    input: draftRefInput,
    output: z.object({ ok }),
    status: 200,
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => {
      await caller.drafts.delete(input);
      return { ok: true };
    },
  }),
  route({
    ref: "F10",
    method: "POST",
    path: "/api/embed/submit",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Submit a form: validate, store, delete the draft, webhook, audit, redirect, e-mail",
    input: submitInput,
    output: submitResult.extend({ ok }),
    status: 200,
    example: {
      request: { values: { name: "Erika Muster", birthDate: "1961-04-12" } },
      response: {
        ok: true,
        rnummer: "R-2026-0042",
        webhookDelivered: true,
        submissionId: EXAMPLE_ID,
        redirectUrl: null,
      },
    },
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => ({ ok: true, ...(await caller.submissions.submit(input)) }),
  }),
  route({
    ref: "B-events",
    method: "POST",
    path: "/api/embed/events",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Report form.opened or form.closed from the embedded form",
    description:
      "`data` (at most 2 KiB as JSON) is passed on in the webhook only as `data.untrustedClientData`, never beside the fields the service vouches for. An embed session may report 20 events per 10 minutes (429 with `Retry-After`).",
    input: formEventInput.extend({ templateIdentifier: templateIdentifier.optional() }),
    output: z.object({ ok }),
    status: 200,
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => {
      await caller.forms.event(input);
      return { ok: true };
    },
  }),
  route({
    ref: "F11",
    method: "POST",
    path: "/api/embed/webhook-event",
    area: "B",
    auth: "orgToken",
    summary: "Send a test webhook event to the organization's webhook URLs",
    input: webhookTestInput,
    output: z.object({ ok, delivered: z.boolean() }),
    status: 200,
    errors: { 404: "no template with that identifier" },
    call: async (caller, input) => ({ ok: true, ...(await caller.webhooks.test(input)) }),
  }),
  route({
    ref: "F12",
    method: "GET",
    path: "/api/embed/webhook-events",
    area: "B",
    auth: "orgToken",
    summary: "Webhook log: one entry per delivery attempt, newest first",
    input: listWebhookEventsInput,
    output: z.object({ ok, events: z.array(webhookLogEntry) }),
    status: 200,
    call: async (caller, input) => ({ ok: true, events: await caller.webhooks.log(input) }),
  }),
  route({
    ref: "F13",
    method: "GET",
    path: "/api/embed/audit-logs",
    area: "B",
    auth: "orgToken",
    summary: "Audit log, newest first",
    input: listAuditLogsInput,
    output: z.object({ ok, logs: z.array(auditLogEntry) }),
    status: 200,
    call: async (caller, input) => ({ ok: true, logs: await caller.audit.list(input) }),
  }),
  route({
    ref: "B-uploads",
    method: "POST",
    path: "/api/embed/uploads",
    area: "B",
    auth: "orgTokenOrSession",
    summary: "Upload files for a file field (multipart/form-data); answers signed, expiring URLs",
    body: "multipart",
    input: uploadFilesInput,
    output: z.object({ ok, files: z.array(uploadedFile) }),
    status: 200,
    errors: { 404: NO_ACTIVE_TEMPLATE },
    call: async (caller, input) => ({ ok: true, files: await caller.uploads.create(input) }),
  }),
  route({
    ref: "F1",
    method: "POST",
    path: "/api/portal/request",
    area: "B",
    auth: "orgToken",
    summary: "Start a form process: store the request and send the portal link by SMS",
    input: createFormRequestInput,
    output: z.object({ ok, rnummer: z.string(), phone: z.string(), templateIdentifier: z.string() }),
    status: 200,
    errors: { 403: "the template belongs to another organization", 404: "no form assigned (no active template)" },
    call: async (caller, input) => ({ ok: true, ...(await caller.formRequests.create(input)) }),
  }),

  // ---------------------------------------------------------------- area A: signatures
  route({
    ref: "A1",
    method: "POST",
    path: "/signature-requests",
    area: "A",
    auth: "bearer",
    summary: "Create a signature request (assignment) for a patient and an active document",
    input: createSignatureRequestInput,
    output: createSignatureRequestOutput,
    status: 201,
    example: {
      request: {
        patient_id: "P-100231",
        document_id: EXAMPLE_ID,
        institution_id: "klinik-nord",
        expiration_date: "2026-03-09T18:00:00.000Z",
        order_by: "dr.weber",
      },
      response: { signing_link: EXAMPLE_LINK, signature_id: EXAMPLE_ID, expiration_date: "2026-03-09T18:00:00.000Z" },
    },
    errors: {
      404: "no such document (`document_id`, or one in `documents_by_language`), or another organization's",
    },
    call: (caller, input) => caller.signatures.create(input),
  }),
  route({
    ref: "A2",
    method: "GET",
    path: "/signature-requests",
    area: "A",
    auth: "bearer",
    summary: "Open signature links of a patient (active, pending or opened, not expired)",
    input: patientQuery,
    output: z.array(openSignatureLink),
    status: 200,
    call: (caller, input) => caller.signatures.listOpen(input),
  }),
  route({
    ref: "A3",
    method: "GET",
    path: "/signature-requests/completed",
    area: "A",
    auth: "bearer",
    summary: "Completed signature processes of a patient",
    input: patientQuery,
    output: z.array(completedProcess),
    status: 200,
    call: (caller, input) => caller.signatures.listCompleted(input),
  }),
  route({
    ref: "A3",
    method: "GET",
    path: "/signature-requests/{id}/signed.pdf",
    area: "A",
    auth: "bearer",
    summary: "Download the signed and sealed PDF of a completed request (A3 signed_pdf_url)",
    input: signatureRequestIdInput,
    output: z.string(),
    produces: "application/pdf",
    status: 200,
    call: async (caller, input) => {
      const base64 = await caller.signatures.signedArtifact({ id: input.id, kind: "pdf" });
      return new RestReply(200, Buffer.from(base64, "base64"), "application/pdf", {
        "content-disposition": `attachment; filename="signed-${input.id}.pdf"`,
      });
    },
  }),
  route({
    ref: "A3",
    method: "GET",
    path: "/signature-requests/{id}/metadata.json",
    area: "A",
    auth: "bearer",
    summary: "Download the metadata JSON of a completed request (A3 metadata_json_url)",
    input: signatureRequestIdInput,
    output: z.record(z.string(), z.unknown()),
    status: 200,
    call: async (caller, input) => {
      const base64 = await caller.signatures.signedArtifact({ id: input.id, kind: "metadata" });
      // The stored bytes exactly, so their SHA-256 matches the one recorded at completion.
      return new RestReply(200, Buffer.from(base64, "base64"), "application/json; charset=utf-8");
    },
  }),
  route({
    ref: "A4",
    method: "POST",
    path: "/signature-requests/verify-session",
    area: "A",
    auth: "bearer",
    summary: "Confirm a patient portal session token and get a one-time link into the signing page",
    input: verifySessionInput,
    output: verifySessionOutput,
    status: 200,
    example: {
      request: {
        patient_id: "P-100231",
        signature_id: EXAMPLE_ID,
        session_token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQLTEwMDIzMSJ9.c2ln",
      },
      response: {
        valid: true,
        redirect_url: "https://portal.klinik.example/sign/ticket/Zt5cQ1wE8rT2yU6iO0pA4sD9fG3hJ7kL1zX5cV9bN2m",
        session_token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJQLTEwMDIzMSJ9.c2ln",
      },
    },
    errors: { 404: "no such signature request, or another organization's" },
    call: (caller, input) => caller.signatures.verifySession(input),
  }),
  route({
    ref: "A5",
    method: "POST",
    path: "/design",
    area: "A",
    auth: "bearer",
    summary: "Create the portal branding of an institution (409 if it exists)",
    description: DESIGN_FALLBACK,
    input: designInput,
    output: designOutput,
    status: 201,
    example: { response: { message: "Design saved successfully" } },
    errors: { 409: "this institution already has a design (use PUT)" },
    call: (caller, input) => caller.signatures.createDesign(input),
  }),
  route({
    ref: "A5",
    method: "PUT",
    path: "/design",
    area: "A",
    auth: "bearer",
    summary: "Replace the portal branding of an institution (404 if none)",
    description: DESIGN_FALLBACK,
    input: designInput,
    output: designOutput,
    status: 200,
    example: { response: { message: "Design saved successfully" } },
    errors: { 404: "this institution has no design yet (use POST)" },
    call: (caller, input) => caller.signatures.replaceDesign(input),
  }),
  route({
    ref: "A6",
    method: "POST",
    path: "/documents",
    area: "A",
    auth: "bearer",
    summary: "Register a document: the PDF is fetched, checked and stored with its SHA-256",
    input: createDocumentInput,
    output: createDocumentOutput,
    status: 201,
    example: {
      request: {
        document_name: "Aufklärung Knie-OP",
        document_description: "Aufklärungsbogen Arthroskopie",
        account_name: "chirurgie",
        signingfield_koordinates: { page: 2, x: 72, y: 96, width: 220, height: 60 },
        document_bloburl: "https://files.klinik.example/aufklaerung-knie.pdf",
      },
      response: {
        document_name: "Aufklärung Knie-OP",
        document_id: EXAMPLE_ID,
        document_bloburl: "https://files.klinik.example/aufklaerung-knie.pdf",
      },
    },
    call: (caller, input) => caller.documents.create(input),
  }),
  route({
    ref: "A7",
    method: "PUT",
    path: "/assignments/{id}",
    area: "A",
    auth: "bearer",
    summary: "Change an assignment's visibility, expiry or link",
    input: updateAssignmentInput,
    output: updateAssignmentOutput,
    status: 200,
    example: {
      request: {
        id: EXAMPLE_ID,
        status: "active",
        expiration_timestamp: "2026-03-16T18:00:00.000Z",
        assigment_url: null,
      },
      response: { id: EXAMPLE_ID, status: "active", expiration_timestamp: "2026-03-16T18:00:00.000Z" },
    },
    errors: { 409: "the request is completed, declined or expired: its expiry can no longer change" },
    bodyEchoes: ["id"],
    call: (caller, input) => caller.signatures.updateAssignment(input),
  }),
  route({
    ref: "A8",
    method: "PUT",
    path: "/documents/{id}",
    area: "A",
    auth: "bearer",
    summary: "New document version (title, description, fields); unstarted requests follow it",
    input: updateDocumentInput,
    output: updateDocumentOutput,
    status: 200,
    example: {
      request: {
        title: "Aufklärung Knie-OP (2026)",
        fields: { signature: { page: 2, x: 72, y: 96, width: 220, height: 60 } },
      },
      response: { id: EXAMPLE_ID, modified: true },
    },
    call: (caller, input) => caller.documents.update(input),
  }),
  route({
    ref: "A9",
    method: "DELETE",
    path: "/documents/{id}",
    area: "A",
    auth: "bearer",
    summary: "Delete a document without signature requests (409 {deleted:false, reason} otherwise)",
    input: documentIdInput,
    output: deleteDocumentOutput,
    status: 200,
    example: { response: { deleted: true, reason: null } },
    otherReply: {
      status: 409,
      description: "the document has signature requests: `{deleted: false, reason}` (not the error envelope)",
      body: deleteDocumentOutput,
      example: { deleted: false, reason: "the document has signature requests and cannot be deleted" },
    },
    call: async (caller, input) => {
      const result = await caller.documents.delete(input);
      return result.deleted ? result : new RestReply(409, result);
    },
  }),
  route({
    ref: "A10",
    method: "PATCH",
    path: "/documents/{id}/availability",
    area: "A",
    auth: "bearer",
    summary: "Set a document's availability (only active documents accept new requests)",
    input: setAvailabilityInput,
    output: availabilityOutput,
    status: 200,
    example: { request: { availability: "active" } },
    call: (caller, input) => caller.documents.setAvailability(input),
  }),
  route({
    ref: "verify",
    method: "POST",
    path: "/verify",
    area: "A",
    auth: "public",
    summary: "Check a sealed PDF: sealed by this service, intact, who sealed it and when, PAdES level, what changed",
    description: [
      "No credentials. Send the PDF as the raw body (`Content-Type: application/pdf`) or as the first file of a",
      "`multipart/form-data` body. At most 25 MB (413 beyond, refused before more is read); at most 30 checks per",
      "address in 10 minutes (429). Nothing is stored. A file that is not a PDF is 400 with `details.reason` `not_pdf`.",
      "`sealedAt.source` says where the time comes from: an RFC 3161 timestamp (`signature_timestamp`,",
      '`document_timestamp`) or the signer\'s own claim (`claimed`). See docs/signatures.md ("Verifying a sealed PDF").',
    ].join("\n"),
    body: "pdf",
    maxBodyBytes: MAX_VERIFY_BYTES,
    admit: consumeVerifyAttempt,
    input: verifyPdfInput,
    output: verifyResult,
    status: 200,
    errors: { 429: "more than 30 checks from one address in 10 minutes" },
    call: (caller, input) => caller.verify.check(input),
  }),
  route({
    ref: "patients-export",
    method: "POST",
    path: "/patients/export",
    area: "A",
    auth: "bearer",
    summary: "Patient access export (GDPR Art. 15/20): everything held about one patient as one streamed ZIP",
    description: [
      "Name the patient by `patient_id` (A1's), `rnummer` (case number) and/or `phone` (E.164), as `POST /patients/erase`; a record",
      "matches when it matches any of them. The answer is `application/zip`, streamed: `manifest.json` (every record",
      "with its kind, ids, dates and values as stored; FHIR QuestionnaireResponse per submission and DocumentReference",
      "per sealed document; every file with its path, size and SHA-256), `documents/*.pdf` (every sealed PDF, byte for",
      "byte, with its metadata JSON), `signatures/`, `attachments/` and `index.html` (German and English).",
      "A patient of whom nothing is held gets a ZIP with an empty manifest, not an error. Every export is an audit",
      'entry (`patient.exported`, counts only). See docs/operations.md ("Patient access export").',
    ].join("\n"),
    input: restPatientSelector,
    output: z.string(),
    produces: "application/zip",
    status: 200,
    example: { request: { patient_id: "P-100231", rnummer: "R-2026-0042" } },
    call: async (caller, input) => {
      const exported = await caller.patients.export(selectorOfRest(input));
      return new StreamReply(
        {
          "content-type": "application/zip",
          "content-disposition": `attachment; filename="${exported.filename}"`,
          "cache-control": "private, no-store",
        },
        exported.open(),
      );
    },
  }),
  route({
    ref: "erase",
    method: "POST",
    path: "/patients/erase",
    area: "A",
    auth: "bearer",
    summary: "Erase everything held about one patient (GDPR Art. 17), or with dry_run report it, and get a receipt",
    description: [
      "Names the patient by any of `patient_id` (signature requests), `rnummer` (forms, SMS form requests) and `phone`",
      "(E.164); a record matches when any of them does. Erases the patient's embed sessions, drafts, submissions and their",
      "attachments, SMS form requests with their messages and one-time passwords, signature requests with the signature",
      "image, sealed PDF and metadata JSON, SMS and e-mail outbox entries, webhook deliveries whose body names the patient,",
      "and the personal part of the audit entries about them (the entries stay, so the audit chain still verifies).",
      "",
      "`dry_run: true` reports what would be erased (`status` `preview`) and changes nothing. The receipt holds counts per",
      "kind, SHA-256 digests of the record ids and what happened to the stored files, never the patient's values.",
      "Repeating an erasure finds nothing (`status` `nothing_found`) and changes nothing. `objects_pending`: some stored",
      "files could not be deleted yet; a background job retries them (the receipt's id names the erasure).",
      "An active legal hold on the patient refuses the erasure with 409 `conflict`, `details.reason` `legal_hold`",
      "(a dry run answers 200 with `legal_hold: true`). At most 30 erasures per organization a minute (429).",
      'See docs/operations.md ("Patient erasure").',
    ].join("\n"),
    input: restPatientErasureInput,
    output: restPatientErasureReceipt,
    status: 200,
    example: { request: { patient_id: "P-100231", rnummer: "R-2026-0042", dry_run: true } },
    errors: {
      409: "an active legal hold names the patient (`details.reason` `legal_hold`)",
      429: "more than 30 erasures of the organization in a minute",
    },
    call: (caller, input) =>
      caller.patients
        .erase({
          selector: { patientId: input.patient_id, rnummer: input.rnummer, phone: input.phone },
          dryRun: input.dry_run,
        })
        .then(restReceiptOf),
  }),
];

/**
 * The REST door's one route table: the documented paths above (the OpenAPI document shows only
 * these), then the admin console's file routes (console-routes.ts), which the adapter serves the
 * same way: method and path, credentials, input parsed once, a reply.
 */
export const routes: Route[] = [...documentedRoutes, ...consoleRoutes];
