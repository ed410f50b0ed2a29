import type { z } from "zod";
import {
  fitsPixelBudget,
  readImageSize,
  SIGNATURE_IMAGE_LIMITS,
  type declineInput,
  type OpenSigningInput,
  type SignedSigningDocument,
  type signInput,
  type SigningState,
  type SigningStatus,
  type SigningView,
} from "@clinsign/contracts";
import { eq, signatureRequests, signingCredentials } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding } from "../branding/branding";
import { afterCommit, contextFor, inTransaction, type OrgContext, type RequestMeta, type Services } from "../context";
import { consumeSigningTicket, requestOfSigningLink, SIGNING_PASS_KIND } from "../credentials/signing";
import { randomSecret, sha256Hex } from "../crypto";
import { findDocument } from "../documents/documents";
import { AppError } from "../errors";
import { organizationNameOf } from "../organizations/profile";
import { enqueueJob } from "../jobs/queue";
import { recordSignatureEvent } from "./events";
import {
  expireIfDue,
  findSignatureRequest,
  inTransactionThenRefuse,
  isPastExpiry,
  versionOf,
  type SignatureRequestRow,
} from "./requests";
import { pageImagesOf } from "./page-images";
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, sealContext, sealSignatureRequest } from "./seal";
import { signedCopyOf } from "./signed-copy";

/**
 * The signer's side of a signature request, behind the signing page: `openSigning` exchanges a
 * signing link or an A4 ticket for a signing pass (the page's `sessionToken`); every later call
 * comes through `signerProcedure` (trpc.ts), which resolved that pass to a signer context of the
 * request's organization, and takes `(ctx, input)`.
 */

/** `signing.sign`'s input as the door parsed it. */
export type SignInput = z.output<typeof signInput>;
/** `signing.decline`'s input as the door parsed it. */
export type DeclineInput = z.output<typeof declineInput>;

/** How long a signing pass lets the page act after opening a link (never beyond the request's expiry). */
const SIGNING_PASS_MINUTES = 60;
/** The sync attempt normally seals at once; the job is the safety net if it fails or the process dies. */
const SEAL_JOB_DELAY_MS = 30_000;
const MAX_SIGNATURE_PNG_BYTES = 1024 * 1024;

/**
 * The request a signer context acts on: the one its signing pass (or link, or ticket) opened. The
 * signer procedures build such a context only from a valid credential.
 */
export function signerRequestId(ctx: OrgContext): string {
  if (ctx.actor.type !== "signer" || !ctx.actor.id)
    throw new AppError("unauthorized", "the signing session has ended; open the signing link again");
  return ctx.actor.id;
}

const emptyView = (state: SigningState): SigningView => ({
  state,
  sessionToken: null,
  sessionExpiresAt: null,
  documentTitle: null,
  documentDescription: null,
  institutionId: null,
  organizationName: null,
  branding: null,
  pageCount: null,
  pageSizes: null,
  fields: null,
  expiresAt: null,
  signedCopy: null,
  signedCopyUntil: null,
});

/** The organization's signed-copy period, in days (the request's organization, from its scope). */
async function signedCopyDaysOf(ctx: OrgContext): Promise<number> {
  return (await ctx.scope.organization()).signedCopyDays ?? 0;
}

function stateOf(row: SignatureRequestRow): SigningState {
  if (row.visibility === "draft") return "unavailable";
  switch (row.status) {
    case "pending":
    case "opened":
      return "ready";
    default:
      return row.status;
  }
}

/**
 * `signing.open`: a signing link (unless the organization requires A4 verification) or a
 * one-time ticket from A4. The credential exchange before any context exists, hence
 * `(services, request, input)`; the rest is `openForSigner` in the request's organization.
 */
export async function openSigning(
  services: Services,
  request: RequestMeta,
  input: OpenSigningInput,
): Promise<SigningView> {
  const via = "ticket" in input ? ("ticket" as const) : ("link" as const);
  const grant =
    "ticket" in input
      ? await consumeSigningTicket(services, input.ticket)
      : await requestOfSigningLink(services, input.token);
  if (!grant) return emptyView("unknown");
  return openForSigner(contextFor(services, { kind: "signer", ...grant }, request), { via });
}

/**
 * A `ready` request is marked `opened` with its document version pinned, and a signing pass is
 * issued for the page to keep. A signed request whose copy period has not ended also gets a
 * pass: it serves only the signer's copy (`signing.status`, `signing.signedDocument`); signing
 * and declining refuse it.
 */
async function openForSigner(ctx: OrgContext, input: { via: "link" | "ticket" }): Promise<SigningView> {
  if (input.via === "link" && (await ctx.scope.organization()).requireSessionVerification)
    return emptyView("verification_required");
  const requestId = signerRequestId(ctx);
  const { request } = ctx;
  return inTransaction(ctx, async (tx) => {
    let row = await expireIfDue(tx, await findSignatureRequest(tx, requestId, true));
    const state = stateOf(row);
    if (state === "unknown" || state === "unavailable" || state === "expired") return emptyView(state);
    if (row.status === "pending") {
      const doc = await findDocument(tx, row.documentId);
      const [opened] = await tx.scope
        .update(
          signatureRequests,
          { status: "opened", pinnedVersion: doc.currentVersion, openedAt: new Date(), updatedAt: new Date() },
          eq(signatureRequests.id, row.id),
        )
        .returning();
      row = opened!;
      await recordSignatureEvent(
        tx,
        "signature.opened",
        {
          signatureId: row.id,
          documentId: row.documentId,
          version: doc.currentVersion,
          via: input.via,
        },
        { patient_id: row.patientId },
      );
    }
    const version = await versionOf(tx, row);
    const copy = signedCopyOf(row, await signedCopyDaysOf(tx));
    let signingPass: string | null = null;
    let signingPassExpiresAt: Date | null = null;
    if (state === "ready" || (copy.until && copy.state !== "expired")) {
      // A pass to sign ends with the request's expiry; one for the copy with the copy period.
      const end = state === "ready" ? row.expiresAt : copy.until!;
      signingPass = randomSecret(32);
      signingPassExpiresAt = new Date(Math.min(Date.now() + SIGNING_PASS_MINUTES * 60_000, end.getTime()));
      await tx.scope.insert(signingCredentials, {
        requestId: row.id,
        kind: SIGNING_PASS_KIND,
        secretHash: sha256Hex(signingPass),
        expiresAt: signingPassExpiresAt,
        ip: request.ip,
        userAgent: request.userAgent,
      });
    }
    return {
      state: stateOf(row),
      // The wire still calls the signing pass a session token (interface document).
      sessionToken: signingPass,
      sessionExpiresAt: signingPassExpiresAt?.toISOString() ?? null,
      documentTitle: version.title,
      documentDescription: version.description,
      institutionId: row.institutionExternalId,
      organizationName: await organizationNameOf(tx),
      branding: await getBranding(tx, row.institutionId),
      pageCount: version.pageCount,
      pageSizes: version.pageSizes,
      fields: version.fields,
      expiresAt: row.expiresAt.toISOString(),
      signedCopy: copy.state,
      signedCopyUntil: copy.until?.toISOString() ?? null,
      pageImages: state === "ready" ? await pageImagesOf(tx, row, version) : null,
    };
  });
}

/** Why the patient cannot act on this request now, or null when it is open for signing. */
export function refusal(row: SignatureRequestRow): AppError | null {
  if (row.visibility === "draft")
    return new AppError("conflict", "this signature request is not available", { reason: "request_unavailable" });
  if (row.status !== "opened") {
    return new AppError("conflict", `this signature request is ${row.status}`, {
      reason: `request_${row.status}`,
      status: row.status,
    });
  }
  return null;
}

/** `signing.document`: the pinned PDF version the patient is asked to sign, as base64. */
export async function getSigningDocument(ctx: OrgContext) {
  const requestId = signerRequestId(ctx);
  const row = await inTransaction(ctx, async (tx) => expireIfDue(tx, await findSignatureRequest(tx, requestId, true)));
  const refused = refusal(row);
  if (refused) throw refused;
  const version = await versionOf(ctx, row);
  const bytes = await ctx.services.storage.get(version.storageKey);
  if (!bytes) throw new Error(`stored PDF of document ${row.documentId} version ${version.version} is missing`);
  return {
    contentType: "application/pdf" as const,
    base64: bytes.toString("base64"),
    sha256: version.sha256,
    version: version.version,
  };
}

/** The signer's request as it stands now (an open request past its expiry is expired first). */
async function currentRequest(ctx: OrgContext, requestId: string): Promise<SignatureRequestRow> {
  // A plain read (the page polls); only an open request past its expiry needs the locked path.
  const row = await findSignatureRequest(ctx, requestId);
  if (!isPastExpiry(row)) return row;
  return inTransaction(ctx, async (tx) => expireIfDue(tx, await findSignatureRequest(tx, requestId, true)));
}

/**
 * `signing.status`: the request's state and the signer's copy, for the page to poll while the
 * request is `sealing` and to learn where a request it knows stands. Reads only.
 */
export async function getSigningStatus(ctx: OrgContext): Promise<SigningStatus> {
  const row = await currentRequest(ctx, signerRequestId(ctx));
  const copy = signedCopyOf(row, await signedCopyDaysOf(ctx));
  return { state: stateOf(row), signedCopy: copy.state, signedCopyUntil: copy.until?.toISOString() ?? null };
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
    metadata: { signatureId: row.id, documentId: row.documentId, sha256 },
  });
  return { state, contentType: "application/pdf", base64: bytes.toString("base64"), sha256 };
}

function decodeSignaturePng(dataUrl: string): Buffer {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  if (bytes.length > MAX_SIGNATURE_PNG_BYTES) {
    throw new AppError("payload_too_large", "the signature image exceeds 1 MB", { field: "signature.dataUrl" });
  }
  // Sealing decodes every pixel the header declares: measure it from the IHDR first, without decoding.
  const size = readImageSize(bytes);
  if (!size || size.format !== "png")
    throw new AppError("invalid_request", "the signature is not a PNG image", { field: "signature.dataUrl" });
  if (!fitsPixelBudget(size)) {
    const { maxSide, maxPixels } = SIGNATURE_IMAGE_LIMITS;
    throw new AppError(
      "invalid_request",
      `the signature image is ${size.width} × ${size.height} pixels; at most ${maxSide} × ${maxSide} and ${maxPixels / 1_000_000} megapixels are accepted`,
      { field: "signature.dataUrl" },
    );
  }
  return bytes;
}

/**
 * `signing.sign`: records the signature and moves the request to `sealing` in one transaction
 * (with its audit entry and the durable sealing job); once that commits, sealing starts right
 * away (an after-commit effect, so a caller's outer transaction that rolls back seals nothing).
 * A second submission finds the request already signed and signs nothing. If sealing fails, the
 * request stays visibly `sealing` and the job retries it.
 */
export async function signRequest(ctx: OrgContext, input: SignInput): Promise<{ state: "sealing" | "completed" }> {
  const requestId = signerRequestId(ctx);
  const { services, request } = ctx;
  const png = input.signature.kind === "drawn" ? decodeSignaturePng(input.signature.dataUrl) : null;
  // Stored before the transaction (file storage must not run inside it); removed if unused.
  const image = png ? await services.storage.put("signatures", png) : null;
  let sealed = false;
  let outcome: { state: "sealing" | "completed"; fresh: boolean };
  try {
    outcome = await inTransactionThenRefuse(ctx, async (tx) => {
      const row = await expireIfDue(tx, await findSignatureRequest(tx, requestId, true));
      if (row.status === "sealing" || row.status === "completed") return { state: row.status, fresh: false };
      const refused = refusal(row);
      if (refused) return refused;
      await tx.scope.update(
        signatureRequests,
        {
          status: "sealing",
          signedAt: new Date(),
          signatureMethod: input.signature.kind,
          signatureImageKey: image?.key ?? null,
          typedName: input.signature.kind === "typed" ? input.signature.name : null,
          signerIp: request.ip,
          signerUserAgent: request.userAgent,
          updatedAt: new Date(),
        },
        eq(signatureRequests.id, row.id),
      );
      await recordAudit(tx, {
        action: "signature.signed",
        metadata: {
          signatureId: row.id,
          documentId: row.documentId,
          version: row.pinnedVersion,
          method: input.signature.kind,
          consent: true,
          ...(image && { signatureImageSha256: image.sha256 }),
        },
      });
      await enqueueJob(tx.scope, {
        organizationId: row.organizationId,
        kind: SEAL_JOB,
        payload: { organizationId: row.organizationId, signatureId: row.id },
        runAt: new Date(Date.now() + SEAL_JOB_DELAY_MS),
        maxAttempts: SEAL_MAX_ATTEMPTS,
      });
      // The inline seal: the job above is the safety net if it fails or the process dies.
      await afterCommit(tx, "seal the signed request", async () => {
        try {
          const sealing = sealContext(services, row.organizationId, row.id);
          sealed = (await sealSignatureRequest(sealing, { id: row.id })) === "completed";
        } catch (error) {
          services.log.warn({ err: error, signatureId: row.id }, "sealing failed; the seal job will retry");
        }
      });
      return { state: "sealing" as const, fresh: true };
    });
  } catch (error) {
    if (image) await services.storage.delete(image.key).catch(() => {});
    throw error;
  }
  if (!outcome.fresh) {
    if (image) await services.storage.delete(image.key).catch(() => {});
    return { state: outcome.state };
  }
  // Sealed by now unless the seal failed (the job retries) or an outer transaction is still open.
  return { state: sealed ? "completed" : "sealing" };
}

/** `signing.decline`: the patient declines; repeated calls answer the same. */
export async function declineRequest(ctx: OrgContext, input: DeclineInput): Promise<{ state: "declined" }> {
  const requestId = signerRequestId(ctx);
  return inTransactionThenRefuse(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, requestId, true));
    if (row.status === "declined") return { state: "declined" as const };
    const refused = refusal(row);
    if (refused) return refused;
    await tx.scope.update(
      signatureRequests,
      { status: "declined", declinedAt: new Date(), declineReason: input.reason || null, updatedAt: new Date() },
      eq(signatureRequests.id, row.id),
    );
    await recordSignatureEvent(
      tx,
      "signature.declined",
      { signatureId: row.id, documentId: row.documentId, reason: input.reason || null },
      { patient_id: row.patientId, reason: input.reason || null },
    );
    return { state: "declined" as const };
  });
}
