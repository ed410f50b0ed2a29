/**
 * The signature request as the rest of the core reads it: the row, whether it is still open,
 * its links, the document and version it shows (issue 19's pin) and the request a signer context
 * acts on. Reads only: everything that changes a request (requests.ts, signing.ts, seal.ts,
 * signers.ts, notices.ts) depends on this file, and this file on none of them.
 */
import { eq, signatureRequests, sql, type SignatureRequestStatus } from "@clinsign/db";
import type { PatientLanguage } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { findDocument, findVersion, isUuid } from "../documents/documents";
import { AppError, notFound } from "../errors";

export type SignatureRequestRow = typeof signatureRequests.$inferSelect;
/** Statuses in which the patient can still act; only these expire. */
export const OPEN_STATUSES: SignatureRequestStatus[] = ["pending", "opened"];

export const signingLink = (ctx: Pick<OrgContext, "services">, token: string) =>
  `${ctx.services.config.publicWebUrl}/sign/${token}`;
export const ticketLink = (ctx: Pick<OrgContext, "services">, ticket: string) =>
  `${ctx.services.config.publicWebUrl}/sign/ticket/${ticket}`;
export const signedPdfUrl = (ctx: Pick<OrgContext, "services">, id: string) =>
  `${ctx.services.config.publicApiUrl}/signature-requests/${id}/signed.pdf`;
export const metadataJsonUrl = (ctx: Pick<OrgContext, "services">, id: string) =>
  `${ctx.services.config.publicApiUrl}/signature-requests/${id}/metadata.json`;

export function isPastExpiry(row: SignatureRequestRow, now = new Date()): boolean {
  return OPEN_STATUSES.includes(row.status) && row.expiresAt.getTime() <= now.getTime();
}

export async function findSignatureRequest(
  ctx: OrgContext,
  id: string,
  forUpdate = false,
): Promise<SignatureRequestRow> {
  if (!isUuid(id)) throw notFound("signature request", { field: "id" });
  const query = ctx.scope.select(signatureRequests, eq(signatureRequests.id, id)).limit(1);
  const [row] = await (forUpdate ? query.for("update") : query);
  if (!row) throw notFound("signature request", { field: "id" });
  return row;
}

/**
 * Documents in the patient's language (issue 19). A request names its main document
 * (`document_id`) and may name one document per language (`documents_by_language`). Nothing is
 * copied: when the patient opens the request, the document for the signing page's language is
 * chosen once (`documentForLanguage`) and stored as `pinned_document_id` beside `pinned_version`.
 * From then on every reader (signing view, page images, download, sign, seal, verify, staff,
 * A2/A3, FHIR, export) asks `pinnedDocumentIdOf` / `versionOf`, so they all see the same
 * document whatever language the page switches to later. `document_id` stays what A1 was sent.
 */
type DocumentChoiceRow = Pick<SignatureRequestRow, "documentId" | "pinnedDocumentId" | "pinnedVersion"> & {
  documentsByLanguage?: SignatureRequestRow["documentsByLanguage"];
};

/** The document the request shows now: the pinned one once opened (rows pinned before 0033: `document_id`), else `document_id`. */
export const pinnedDocumentIdOf = (row: Pick<SignatureRequestRow, "documentId" | "pinnedDocumentId">): string =>
  row.pinnedDocumentId ?? row.documentId;

/** `pinnedDocumentIdOf` in SQL, for queries that join the request's document version. */
export const pinnedDocumentIdColumn = sql<string>`coalesce(${signatureRequests.pinnedDocumentId}, ${signatureRequests.documentId})`;

/**
 * THE choice of the document a patient gets (issue 19), for opening a request and for any view
 * that must show the same (e.g. a preview): once pinned, the pinned document whatever `language`
 * says; before, the request's document for `language` when it has one, else the main document.
 */
export function documentForLanguage(row: DocumentChoiceRow, language: PatientLanguage | null | undefined): string {
  if (row.pinnedVersion !== null) return pinnedDocumentIdOf(row);
  return (language && row.documentsByLanguage?.[language]) || row.documentId;
}

/** The version a request shows: the pinned one (of the pinned document) once opened, else the main document's newest. */
export function versionOf(ctx: OrgContext, row: SignatureRequestRow) {
  return versionForLanguage(ctx, row, null);
}

/**
 * The version the patient gets when opening now with the page in `language`: the pinned one, else
 * the newest version of `documentForLanguage`'s choice (the main document without a language).
 * What `signing.preview` shows before the pin.
 */
export async function versionForLanguage(
  ctx: OrgContext,
  row: SignatureRequestRow,
  language: PatientLanguage | null | undefined,
) {
  if (row.pinnedVersion !== null) return findVersion(ctx, pinnedDocumentIdOf(row), row.pinnedVersion);
  const doc = await findDocument(ctx, documentForLanguage(row, language));
  return findVersion(ctx, doc.id, doc.currentVersion);
}

/**
 * Every version the request may show now: the pinned one, or before the pin the newest version
 * of the main document and of each document in another language (a preview in any language).
 */
export async function candidateVersions(ctx: OrgContext, row: SignatureRequestRow) {
  if (row.pinnedVersion !== null) return [await versionOf(ctx, row)];
  const ids = [...new Set([row.documentId, ...Object.values(row.documentsByLanguage ?? {})])];
  return Promise.all(
    ids.map(async (id) => {
      const doc = await findDocument(ctx, id);
      return findVersion(ctx, doc.id, doc.currentVersion);
    }),
  );
}

/**
 * The request a signer context acts on: the one its signing pass (or link, or ticket) opened. The
 * signer procedures build such a context only from a valid credential.
 */
export function signerRequestId(ctx: OrgContext): string {
  if (ctx.actor.type !== "signer" || !ctx.actor.id)
    throw new AppError("unauthorized", "the signing session has ended; open the signing link again");
  return ctx.actor.id;
}
