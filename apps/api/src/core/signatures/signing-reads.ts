import type { SignedSigningDocument, SigningStatus } from "@clinsign/contracts";
import { and, eq, inArray, signatureRequests, signatureSigners, documents, documentVersions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { expireIfDue } from "./requests";
import {
  findSignatureRequest,
  pinnedDocumentIdColumn,
  pinnedDocumentIdOf,
  signerRequestId,
  versionOf,
} from "./request-read";
import { signedCopyOf } from "./signed-copy";
import { partyView } from "./signer-views";
import { currentRequest, partyOf, refusal, signedCopyDaysOf, stateOf, type SignerPick } from "./signing-party";

/**
 * What a signer reads without changing the request (signing.ts opens it): the pinned PDF
 * (`signing.document`, the staff signer's `staffSigningDocument`), where the request stands
 * (`signing.status`), the sealed copy (`signing.signedDocument`), and the console's list of
 * requests awaiting the calling staff member's signature.
 */

/** `signing.document`: the pinned PDF version the patient is asked to sign, as base64. */
export async function getSigningDocument(ctx: OrgContext) {
  return documentFor(ctx, signerRequestId(ctx), "portal");
}

/** `signatures.staffSigningDocument`: the pinned PDF for the named staff signer. */
export async function staffSigningDocument(ctx: OrgContext, input: { id: string }) {
  return documentFor(ctx, input.id, "staff");
}

/** The pinned PDF for a signer (portal) or the named staff signer (console); reading needs no turn. */
async function documentFor(ctx: OrgContext, signatureRequestId: string, pick: SignerPick) {
  const row = await inTransaction(ctx, async (tx) =>
    expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true)),
  );
  const refused = refusal(row, await partyOf(ctx, row, pick));
  if (refused) throw refused;
  const version = await versionOf(ctx, row);
  const bytes = await ctx.services.storage.get(version.storageKey);
  if (!bytes) throw new Error(`stored PDF of document ${version.documentId} version ${version.version} is missing`);
  return {
    contentType: "application/pdf" as const,
    base64: bytes.toString("base64"),
    sha256: version.sha256,
    version: version.version,
  };
}

/**
 * `signing.status`: the request's state and the signer's copy, for the page to poll while the
 * request is `sealing` and to learn where a request it knows stands. Reads only.
 */
export async function getSigningStatus(ctx: OrgContext): Promise<SigningStatus> {
  const row = await currentRequest(ctx, signerRequestId(ctx));
  const copy = signedCopyOf(row, await signedCopyDaysOf(ctx));
  const party = await partyOf(ctx, row, "portal");
  return {
    state: stateOf(row, party?.me),
    signedCopy: copy.state,
    signedCopyUntil: copy.until?.toISOString() ?? null,
    ...(party && { party: await partyView(ctx, row, (await versionOf(ctx, row)).fields, party.signers, party.me) }),
  };
}

/**
 * `signing.signedDocument`: the sealed PDF, the signer's copy, while the organization's copy
 * period lasts (`signedCopyDays` after signing; 409 `signed_copy_expired` after it). The signing
 * pass is one the page got from `signing.open` (by link, or by A4 ticket where the organization
 * requires it), so the copy sits behind the same checks as signing. Each answer with the PDF is
 * audited as `signature.copy_downloaded` (actor `signer`, with IP and user agent). Until sealing
 * has finished the state is `sealing` and there is no PDF yet; other states (declined, expired,
 * …) answer without a PDF.
 */
export async function getSignedSigningDocument(ctx: OrgContext): Promise<SignedSigningDocument> {
  const row = await currentRequest(ctx, signerRequestId(ctx));
  const state = stateOf(row);
  if (state !== "completed" || !row.signedPdfKey)
    return { state, contentType: "application/pdf", base64: null, sha256: null };
  const copy = signedCopyOf(row, await signedCopyDaysOf(ctx));
  if (copy.state === "expired") {
    throw new AppError("conflict", "the signed copy is no longer available here; the clinic can provide it", {
      reason: "signed_copy_expired",
      signedCopyUntil: copy.until!.toISOString(),
    });
  }
  const bytes = await ctx.services.storage.get(row.signedPdfKey);
  if (!bytes) throw new Error(`stored signed PDF of signature request ${row.id} is missing`);
  const sha256 = row.signedPdfSha256 ?? sha256Hex(bytes);
  await recordAudit(ctx, {
    action: "signature.copy_downloaded",
    metadata: { signatureId: row.id, documentId: pinnedDocumentIdOf(row), sha256 },
  });
  return { state, contentType: "application/pdf", base64: bytes.toString("base64"), sha256 };
}

/** `signatures.awaitingMySignature`: open requests where it is the calling staff member's turn to sign. */
export async function awaitingMySignature(ctx: OrgContext) {
  if (ctx.actor.type !== "user" || !ctx.actor.id) return { items: [] };
  const rows = await ctx.scope
    .query({
      id: signatureRequests.id,
      role: signatureSigners.role,
      documentName: documents.name,
      documentTitle: documentVersions.title,
      patientId: signatureRequests.patientId,
      activatedAt: signatureSigners.activatedAt,
      expiresAt: signatureRequests.expiresAt,
    })
    .from(signatureSigners)
    .innerJoin(signatureRequests, eq(signatureRequests.id, signatureSigners.signatureRequestId))
    .innerJoin(documents, eq(documents.id, pinnedDocumentIdColumn))
    .innerJoin(
      documentVersions,
      and(eq(documentVersions.documentId, documents.id), eq(documentVersions.version, signatureRequests.pinnedVersion)),
    )
    .where(
      eq(signatureSigners.staffUserId, ctx.actor.id),
      inArray(signatureSigners.status, ["pending", "opened"]),
      inArray(signatureRequests.status, ["pending", "opened"]),
      eq(signatureRequests.visibility, "active"),
    )
    .orderBy(signatureRequests.expiresAt, signatureRequests.id)
    .limit(200);
  const now = Date.now();
  return {
    items: rows
      .filter((r) => r.expiresAt.getTime() > now)
      .map((r) => ({
        ...r,
        activatedAt: r.activatedAt?.toISOString() ?? null,
        expiresAt: r.expiresAt.toISOString(),
      })),
  };
}
