import { z } from "zod";
import {
  auditExportQuery,
  LOGO_MAX_BYTES,
  consolePatientExportForm,
  exportInputOfForm,
  submissionExportQuery,
  uploadDocumentMetadata,
  type UploadDocumentOutput,
} from "@clinsign/contracts";
import { exportAuditCsv } from "../core/audit/audit-log";
import { logoTooLarge, readLogo, storeLogo } from "../core/branding/logos";
import { MAX_PDF_BYTES, registerDocument } from "../core/documents/documents";
import { readDocumentPdf } from "../core/documents/document-reads";
import { contextFor } from "../core/context";
import { requestOfPageImagesGrant } from "../core/credentials/signing";
import { AppError } from "../core/errors";
import { exportPatientData } from "../core/patients/access-export";
import { getSigningPageImage, PAGE_IMAGES_PATH } from "../core/signatures/page-images";
import { exportSubmissionsCsv, exportSubmissionsJson } from "../core/submissions/export";
import { renderSubmissionPdf } from "../core/submissions/pdf";
import { RestReply, StoredFileReply, StreamReply } from "./replies";
import type { ConsoleRoute } from "./route-types";

/**
 * The admin console's file routes: what carries bytes rather than JSON (document and logo
 * uploads, PDFs, the CSV and JSON exports), beside /trpc. The web app reaches them through its
 * same-origin /staff/* and /branding/logos/* proxies; the request listener refuses cross-site
 * requests to /staff/* that carry a cookie before any of these runs. Not in the OpenAPI document.
 */

// Each entry is checked against its own input schema here; the list holds them under the wider type.
const consoleRoute = <I extends z.ZodType>(r: ConsoleRoute<I>): ConsoleRoute => r;

/** A UUID in the path, in either case; the services get it in lower case. */
const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const idParam = z.object({ id: z.string().transform((id) => id.toLowerCase()) });

const documentTooLarge = () =>
  new AppError("payload_too_large", `the file exceeds ${MAX_PDF_BYTES / (1024 * 1024)} MB`, { field: "file" });

const today = () => new Date().toISOString().slice(0, 10);

/** A logo: the image as the body, or the `file` part of multipart/form-data. */
const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const consoleRoutes: ConsoleRoute[] = [
  consoleRoute({
    kind: "console",
    method: "POST",
    path: "/staff/documents",
    area: "A",
    auth: "staffCookie",
    procedure: "documents.create",
    summary:
      "Upload a document: a `metadata` part (JSON: document_name, document_description, signingfield_koordinates) " +
      "before the `file` part (the PDF); the same checks and storage as A6, and the document starts as a draft",
    upload: {
      maxFileBytes: MAX_PDF_BYTES,
      multipartOverhead: 64 * 1024,
      tooLarge: documentTooLarge,
      missingFile: "file: is required (the PDF)",
    },
    jsonField: "metadata",
    input: uploadDocumentMetadata,
    serve: async ({ ctx, services, file }, metadata) => {
      const doc = await registerDocument(ctx, {
        name: metadata.document_name,
        description: metadata.document_description ?? null,
        accountName: null,
        fields: metadata.signingfield_koordinates,
        language: metadata.language ?? null,
        // A6 echoes the URL a document came from; an uploaded one comes from here.
        sourceUrl: (id) => `${services.config.publicApiUrl}/staff/documents/${id}/pdf`,
        availability: "draft",
        bytes: file!,
        field: "file",
      });
      const answer: UploadDocumentOutput = { id: doc.id, name: doc.name, version: 1 };
      return new RestReply(201, answer);
    },
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    head: true,
    path: "/staff/documents/{id}/pdf",
    params: { id: UUID },
    area: "A",
    auth: "staffCookie",
    procedure: "documents.detail",
    summary: "A stored version's PDF (`?version=N`, else the current one), for the field editor",
    input: idParam.extend({
      version: z
        .string()
        .regex(/^\d{1,9}$/, "must be a whole number")
        .transform(Number)
        .optional(),
    }),
    serve: async ({ ctx }, { id, version }) => {
      const pdf = await readDocumentPdf(ctx, { id, version });
      return new StoredFileReply(ctx.services.storage, {
        key: pdf.storageKey,
        filename: `document-${id}-v${pdf.version}.pdf`,
        contentType: "application/pdf",
        presign: false,
        headers: {
          "content-disposition": `inline; filename="document-${id}-v${pdf.version}.pdf"`,
          "x-document-version": String(pdf.version),
        },
      });
    },
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    path: "/staff/submissions/export",
    area: "A",
    auth: "staffCookie",
    procedure: "submissions.list",
    summary: "The submissions export, CSV or JSON, streamed page by page",
    input: submissionExportQuery,
    serve: async ({ ctx }, { format, sort, optionValues, ...filter }) => {
      const csv = format === "csv";
      return new StreamReply(
        {
          "content-type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="submissions-${today()}.${format}"`,
        },
        csv ? exportSubmissionsCsv(ctx, filter, sort, { optionValues }) : exportSubmissionsJson(ctx, filter, sort),
      );
    },
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    path: "/staff/submissions/{id}/pdf",
    params: { id: UUID },
    area: "A",
    auth: "staffCookie",
    procedure: "submissions.get",
    summary: "One submission as a PDF",
    input: idParam,
    serve: async ({ ctx }, { id }) => {
      const bytes = await renderSubmissionPdf(ctx, { id });
      return new RestReply(200, Buffer.from(bytes), "application/pdf", {
        "content-disposition": `attachment; filename="submission-${id}.pdf"`,
      });
    },
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    path: "/staff/audit-log/export",
    area: "A",
    auth: "staffCookie",
    procedure: "audit.entries",
    summary: "The audit log as CSV, streamed page by page (owners and admins)",
    input: auditExportQuery,
    serve: async ({ ctx }, { sort, ...filter }) =>
      new StreamReply(
        {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="audit-log-${today()}.csv"`,
        },
        exportAuditCsv(ctx, filter, sort),
      ),
  }),
  consoleRoute({
    kind: "console",
    method: "POST",
    path: "/staff/patients/export",
    area: "A",
    auth: "staffCookie",
    procedure: "patients.export",
    summary:
      "The patient access export (a ZIP, streamed) for the Patient data page: the selector as form fields " +
      "(patientId, rnummer, phone) and the overview's language in the body, never in the address (owners and admins)",
    formBody: true,
    input: consolePatientExportForm,
    serve: async ({ ctx }, form) => {
      const exported = exportPatientData(ctx, exportInputOfForm(form));
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
  consoleRoute({
    kind: "console",
    method: "POST",
    path: "/staff/branding/logo",
    area: "A",
    auth: "staffCookie",
    procedure: "organization.setDefaultBranding",
    summary: "Upload the organization's logo (PNG, JPEG, WebP or SVG); answers 201 {logoUrl, contentType, size}",
    upload: {
      maxFileBytes: LOGO_MAX_BYTES,
      multipartOverhead: 16 * 1024,
      raw: {
        accepts: (type) => type.startsWith("image/") || type === "application/octet-stream",
        refusal:
          "send the logo as the body (Content-Type image/png, image/jpeg, image/webp or image/svg+xml) or as multipart/form-data",
      },
      tooLarge: logoTooLarge,
      missingFile: "file: is required (the logo image)",
    },
    input: z.object({}),
    serve: async ({ ctx, file }) => new RestReply(201, await storeLogo(ctx, file!)),
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    head: true,
    // `/branding/logos/<orgId>/<yyyymm>/<random>`; readLogo knows the shape.
    path: "/branding/logos/{key}",
    params: { key: ".*" },
    area: "A",
    auth: "public",
    summary: "An uploaded logo: public (the portal shows it to patients), immutable, inert even when opened directly",
    input: z.object({}),
    serve: async ({ services, url }) => {
      const logo = await readLogo(services.storage, url.pathname);
      if (!logo) throw new AppError("not_found", "logo not found");
      return new RestReply(200, logo.bytes, logo.type, {
        "x-content-type-options": "nosniff",
        "content-security-policy": LOGO_CSP,
        // A logo's path never names other bytes: each upload is a new file.
        "cache-control": "public, max-age=31536000, immutable",
        // The web app's pages load it from their own origin; other sites may embed it as an image.
        "cross-origin-resource-policy": "cross-origin",
      });
    },
  }),
  consoleRoute({
    kind: "console",
    method: "GET",
    head: true,
    // `/signing-pages/<org>.<request>.<tag>/<version sha256>/<page>-<width>.webp`, as
    // `signing.open` hands it out in `pageImages.url` (core/signatures/page-images.ts).
    path: `${PAGE_IMAGES_PATH}/{grant}/{sha256}/{image}`,
    params: {
      grant: "[0-9a-f-]{36}\\.[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}",
      sha256: "[0-9a-f]{64}",
      image: "[0-9]{1,4}-[0-9]{2,5}\\.webp",
    },
    area: "A",
    auth: "public",
    summary:
      "A page of the document a signing link asks to sign, as a WebP image (the signing page shows these instead of the PDF); the grant in the path names the request",
    input: z.object({ grant: z.string(), sha256: z.string(), image: z.string() }),
    serve: async ({ services }, input) => {
      const grant = requestOfPageImagesGrant(services, input.grant);
      if (!grant) throw new AppError("not_found", "page not found");
      const [page, width] = input.image
        .replace(/\.webp$/, "")
        .split("-")
        .map(Number) as [number, number];
      const ctx = contextFor(
        services,
        { kind: "signer", ...grant },
        { requestId: "page-image", ip: null, userAgent: null },
      );
      const bytes = await getSigningPageImage(ctx, {
        signatureRequestId: grant.signatureRequestId,
        sha256: input.sha256,
        page,
        width,
      });
      return new RestReply(200, bytes, "image/webp", {
        "x-content-type-options": "nosniff",
        // The URL names one version's page (its SHA-256): it never stands for other bytes. Private:
        // a patient's document is for this browser only, never a shared cache.
        "cache-control": "private, max-age=31536000, immutable",
        "cross-origin-resource-policy": "same-site",
      });
    },
  }),
];
