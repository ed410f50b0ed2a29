import type { z } from "zod";
import type {
  CompletedProcess,
  PatientLanguage,
  createSignatureRequestInput,
  OpenSignatureLink,
  updateAssignmentInput,
} from "@clinsign/contracts";
import { and, desc, documents, documentVersions, eq, gt, inArray, signatureRequests, sql } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { ensureInstitution } from "../branding/branding";
import { inTransaction, nowOf, type OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { findDocument, findVersion } from "../documents/documents";
import { normaliseMobile } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";
import { recordSignatureEvent } from "./events";
import {
  findSignatureRequest,
  isPastExpiry,
  OPEN_STATUSES,
  pinnedDocumentIdColumn,
  pinnedDocumentIdOf,
  signingLink,
  signedPdfUrl,
  metadataJsonUrl,
  type SignatureRequestRow,
} from "./request-read";
import { latestSealJob } from "./seal";
import { createSigners, hasSeveralSigners, planSigners } from "./signer-plan";
import { AppError, notFound } from "../errors";

/** A1's input as the door parsed it. */
export type CreateSignatureRequestInput = z.output<typeof createSignatureRequestInput>;
/** A7's input as the door parsed it. */
export type UpdateAssignmentInput = z.output<typeof updateAssignmentInput>;

/**
 * Expiry is enforced wherever a request is read for a decision or written, not only by a
 * background sweep: an open request past its expiry is marked `expired` (with its audit entry)
 * the moment anyone touches it. Call inside the transaction that holds the row lock.
 */
export async function expireIfDue(tx: OrgContext, row: SignatureRequestRow): Promise<SignatureRequestRow> {
  const now = nowOf(tx.services);
  if (!isPastExpiry(row, now)) return row;
  const [updated] = await tx.scope
    .update(
      signatureRequests,
      { status: "expired", expiredAt: now, updatedAt: new Date() },
      eq(signatureRequests.id, row.id),
      inArray(signatureRequests.status, OPEN_STATUSES),
    )
    .returning();
  if (!updated) return row;
  await recordSignatureEvent(
    tx,
    "signature.expired",
    {
      signatureId: row.id,
      documentId: pinnedDocumentIdOf(row),
      expiresAt: row.expiresAt.toISOString(),
      previousStatus: row.status,
    },
    { patient_id: row.patientId, expiration_date: row.expiresAt.toISOString() },
  );
  return updated;
}

/**
 * A transaction whose refusal must not undo what it recorded first (an expiry mark and its
 * audit entry): `work` returns the AppError instead of throwing it, and it is thrown after commit.
 */
export async function inTransactionThenRefuse<R>(
  ctx: OrgContext,
  work: (tx: OrgContext) => Promise<R | AppError>,
): Promise<R> {
  const result = await inTransaction(ctx, work);
  if (result instanceof AppError) throw result;
  return result;
}

/** A1's optional `patient_phone` as E.164: a mobile number, national ones read in the organization's country. */
async function reminderPhone(ctx: OrgContext, raw: string): Promise<string> {
  const phone = normaliseMobile(raw, (await organizationProfile(ctx)).phoneCountry);
  if (!phone)
    throw new AppError(
      "invalid_request",
      "patient_phone: must be a mobile number (e.g. +491701234567, or 0170 1234567 in the organization's country)",
      { field: "patient_phone" },
    );
  return phone;
}

/**
 * A1's `documents_by_language`: each an `active` document of this organization whose current
 * version the patient alone signs, as the main one. Kept simple on purpose: one signer only; a
 * request with several signers pins its version (and roles) at creation, before any language is
 * known. The documents are locked so that A9 cannot delete one while this request names it.
 */
async function checkDocumentsByLanguage(
  tx: OrgContext,
  byLanguage: Partial<Record<PatientLanguage, string>>,
  severalSigners: boolean,
): Promise<Partial<Record<PatientLanguage, string>>> {
  if (severalSigners)
    throw new AppError(
      "invalid_request",
      "documents_by_language: only for requests the patient signs alone; this document has fields for other signers, whose roles are fixed when the request is created",
      { field: "documents_by_language", reason: "several_signers" },
    );
  const checked: Partial<Record<PatientLanguage, string>> = {};
  for (const [language, id] of Object.entries(byLanguage) as [PatientLanguage, string][]) {
    const field = `documents_by_language.${language}`;
    // Unknown and foreign ids answer alike (404), so nothing of another organization shows.
    const doc = await findDocument(tx, id, true).catch((error: unknown) => {
      throw error instanceof AppError && error.code === "not_found" ? notFound("document", { field }) : error;
    });
    if (doc.availability !== "active")
      throw new AppError(
        "conflict",
        `${field}: the document is ${doc.availability}; only active documents accept new signature requests`,
        { field, reason: "document_not_active", availability: doc.availability },
      );
    const current = await findVersion(tx, doc.id, doc.currentVersion);
    if (hasSeveralSigners(current.fields))
      throw new AppError(
        "invalid_request",
        `${field}: this document has fields for other signers; a document in another language must be signed by the patient alone, like the main one`,
        { field, reason: "several_signers" },
      );
    checked[language] = doc.id;
  }
  return checked;
}

/** A1: an assignment of an `active` document to a patient, with an unguessable signing link. */
export async function createSignatureRequest(ctx: OrgContext, input: CreateSignatureRequestInput) {
  const token = randomSecret(32);
  return inTransaction(ctx, async (tx) => {
    const doc = await findDocument(tx, input.document_id);
    if (doc.availability !== "active") {
      throw new AppError(
        "conflict",
        `the document is ${doc.availability}; only active documents accept new signature requests`,
        {
          field: "document_id",
          reason: "document_not_active",
          availability: doc.availability,
        },
      );
    }
    // Several signers (issue 20): the roles of the current version decide; none but the patient's = one signer.
    const current = await findVersion(tx, doc.id, doc.currentVersion);
    const planned = await planSigners(tx, current.fields, input.signers);
    const documentsByLanguage = input.documents_by_language
      ? await checkDocumentsByLanguage(tx, input.documents_by_language, planned !== null)
      : null;
    const institutionId = await ensureInstitution(tx, input.institution_id);
    const patientPhone = input.patient_phone === undefined ? null : await reminderPhone(tx, input.patient_phone);
    const [row] = await tx.scope
      .insert(signatureRequests, {
        patientPhone,
        reminderDays: input.reminder_days ?? null,
        documentId: doc.id,
        patientId: input.patient_id,
        institutionId,
        institutionExternalId: input.institution_id,
        orderBy: input.order_by,
        expiresAt: new Date(input.expiration_date),
        tokenHash: sha256Hex(token),
        tokenEnc: ctx.services.secrets.seal(token),
        documentsByLanguage,
        // The signers are bound to this version's roles: it is pinned now, not when first opened.
        ...(planned && { pinnedVersion: doc.currentVersion, signingOrder: input.signing_order ?? "sequential" }),
      })
      .returning();
    const signers = planned ? await createSigners(tx, row!, planned, signingLink(ctx, token)) : null;
    await recordAudit(tx, {
      action: "signature.created",
      metadata: {
        signatureId: row!.id,
        documentId: doc.id,
        patientId: row!.patientId,
        institutionId: row!.institutionExternalId,
        orderBy: row!.orderBy,
        expiresAt: row!.expiresAt.toISOString(),
        ...(documentsByLanguage && { documentsByLanguage }),
        ...(signers && {
          signingOrder: row!.signingOrder,
          signers: signers.map((s) => ({ signerId: s.signer_id, role: s.role, kind: s.kind })),
        }),
      },
    });
    return {
      signing_link: signingLink(ctx, token),
      signature_id: row!.id,
      expiration_date: row!.expiresAt.toISOString(),
      ...(signers && { signers }),
    };
  });
}

const LIST_LIMIT = 500;

/** A2: active-visibility requests of a patient that are pending or opened and not expired. */
export async function listOpenSignatureLinks(
  ctx: OrgContext,
  input: { patient_id: string },
): Promise<OpenSignatureLink[]> {
  // One query: the title comes from the pinned version (of the pinned document), or the main
  // document's newest one while not started.
  const rows = await ctx.scope
    .query({
      id: signatureRequests.id,
      documentId: documents.id,
      title: documentVersions.title,
      assignmentUrl: signatureRequests.assignmentUrl,
      tokenEnc: signatureRequests.tokenEnc,
      status: signatureRequests.status,
      expiresAt: signatureRequests.expiresAt,
    })
    .from(signatureRequests)
    .innerJoin(documents, eq(documents.id, pinnedDocumentIdColumn))
    .innerJoin(
      documentVersions,
      and(
        eq(documentVersions.documentId, documents.id),
        eq(documentVersions.version, sql`coalesce(${signatureRequests.pinnedVersion}, ${documents.currentVersion})`),
      ),
    )
    .where(
      eq(signatureRequests.patientId, input.patient_id),
      eq(signatureRequests.visibility, "active"),
      inArray(signatureRequests.status, OPEN_STATUSES),
      gt(signatureRequests.expiresAt, new Date()),
    )
    .orderBy(signatureRequests.expiresAt, signatureRequests.id)
    .limit(LIST_LIMIT);
  // A2 hands out signing links (bearer credentials). Called with a staff session rather than an
  // API token, each link it shows is recorded as the console's revealLink records it.
  if (ctx.actor.type === "user" && rows.length > 0) {
    await inTransaction(ctx, async (tx) => {
      for (const row of rows)
        await recordAudit(tx, {
          action: "signature.link_viewed",
          metadata: { signatureId: row.id, replaced: row.assignmentUrl !== null, via: "A2" },
        });
    });
  }
  return rows.map((row) => ({
    document_id: row.documentId,
    document_title: row.title,
    signing_link: row.assignmentUrl ?? signingLink(ctx, ctx.services.secrets.open(row.tokenEnc)),
    status: row.status as "pending" | "opened",
    expiration_date: row.expiresAt.toISOString(),
  }));
}

/** A3: completed (signed and sealed) processes of a patient, newest first. */
export async function listCompletedProcesses(
  ctx: OrgContext,
  input: { patient_id: string },
): Promise<CompletedProcess[]> {
  const rows = await ctx.scope
    .select(
      signatureRequests,
      eq(signatureRequests.patientId, input.patient_id),
      eq(signatureRequests.status, "completed"),
    )
    .orderBy(desc(signatureRequests.completedAt), desc(signatureRequests.id))
    .limit(LIST_LIMIT);
  return rows.map((row) => ({
    signature_id: row.id,
    signed_pdf_url: signedPdfUrl(ctx, row.id),
    metadata_json_url: metadataJsonUrl(ctx, row.id),
    timestamp: row.completedAt!.toISOString(),
  }));
}

/** What A7 and the staff console may change on a request; what is absent stays as it is. */
export interface SignatureRequestChange {
  id: string;
  visibility?: "draft" | "active";
  /** Already checked to be in the future (contracts). */
  expiresAt?: string;
  /** An http(s) URL that replaces the signing link in A2, or null to use the signing link again. */
  assignmentUrl?: string | null;
}

/**
 * The one implementation of A7 (`updateAssignment`) and the staff console's `signatures.update`:
 * visibility (`draft` hides the request from A2 and its link does not open), a new expiry (only
 * while the request is still open) and the link A2 shows instead of ours. The change and its
 * audit entry share one transaction; a refused expiry still records an expiry it noticed.
 */
export async function changeSignatureRequest(
  ctx: OrgContext,
  change: SignatureRequestChange,
  fields = { expiresAt: "expiresAt" },
): Promise<SignatureRequestRow> {
  return inTransactionThenRefuse(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, change.id, true));
    if (change.expiresAt !== undefined && !OPEN_STATUSES.includes(row.status)) {
      return new AppError("conflict", `the request is ${row.status}; its expiry can no longer change`, {
        field: fields.expiresAt,
        reason: row.status === "expired" ? "request_expired" : "request_closed",
        status: row.status,
      });
    }
    const changes = {
      ...(change.visibility !== undefined && { visibility: change.visibility }),
      ...(change.expiresAt !== undefined && { expiresAt: new Date(change.expiresAt) }),
      ...(change.assignmentUrl !== undefined && { assignmentUrl: change.assignmentUrl }),
    };
    const [updated] = await tx.scope
      .update(signatureRequests, { ...changes, updatedAt: new Date() }, eq(signatureRequests.id, row.id))
      .returning();
    await recordAudit(tx, {
      action: "signature.assignment_updated",
      metadata: {
        signatureId: row.id,
        ...(changes.visibility && { visibility: { from: row.visibility, to: changes.visibility } }),
        ...(changes.expiresAt && {
          expiresAt: { from: row.expiresAt.toISOString(), to: changes.expiresAt.toISOString() },
        }),
        ...(changes.assignmentUrl !== undefined && { assignmentUrl: changes.assignmentUrl }),
      },
    });
    return updated!;
  });
}

/** A7: the documented shape of `changeSignatureRequest` (`status` is the visibility and always sent). */
export async function updateAssignment(ctx: OrgContext, input: UpdateAssignmentInput) {
  const updated = await changeSignatureRequest(
    ctx,
    {
      id: input.id,
      visibility: input.status,
      expiresAt: input.expiration_timestamp,
      assignmentUrl: input.assigment_url,
    },
    { expiresAt: "expiration_timestamp" },
  );
  return { id: updated.id, status: updated.visibility, expiration_timestamp: updated.expiresAt.toISOString() };
}

/** The stored signed PDF or metadata JSON of a completed request of this organization. */
export async function getSignedArtifact(
  ctx: OrgContext,
  input: { id: string; kind: "pdf" | "metadata" },
): Promise<Buffer> {
  const row = await findSignatureRequest(ctx, input.id);
  const key = input.kind === "pdf" ? row.signedPdfKey : row.metadataKey;
  if (row.status !== "completed" || !key) {
    throw notFound(input.kind === "pdf" ? "signed PDF" : "metadata", { field: "id", status: row.status });
  }
  const bytes = await ctx.services.storage.get(key);
  if (!bytes) throw new Error(`stored ${input.kind} of signature request ${row.id} is missing`);
  return bytes;
}

/** For the admin UI: one request with its state. */
export async function getSignatureRequest(ctx: OrgContext, input: { id: string }) {
  const row = await findSignatureRequest(ctx, input.id);
  const [doc] = await ctx.scope.select(documents, eq(documents.id, row.documentId)).limit(1);
  return {
    id: row.id,
    documentId: row.documentId,
    documentName: doc?.name ?? null,
    /** The document the patient got (issue 19): A1's `document_id` or one of `documentsByLanguage`. */
    pinnedDocumentId: row.pinnedVersion !== null ? pinnedDocumentIdOf(row) : null,
    documentsByLanguage: row.documentsByLanguage,
    pinnedVersion: row.pinnedVersion,
    patientId: row.patientId,
    institutionId: row.institutionExternalId,
    orderBy: row.orderBy,
    visibility: row.visibility,
    status: isPastExpiry(row) ? ("expired" as const) : row.status,
    expiresAt: row.expiresAt.toISOString(),
    assignmentUrl: row.assignmentUrl,
    openedAt: row.openedAt?.toISOString() ?? null,
    signedAt: row.signedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    declinedAt: row.declinedAt?.toISOString() ?? null,
    sealError: row.sealError,
    /** Sealing gave up after its attempts; staff may `sealAgain`. */
    sealFailed: row.status === "sealing" && (await latestSealJob(ctx, row.id))?.status === "failed",
    createdAt: row.createdAt.toISOString(),
  };
}
