import {
  declineInput,
  fitsPixelBudget,
  openSigningInput,
  readImageSize,
  SIGNATURE_IMAGE_LIMITS,
  signInput,
  type SignedSigningDocument,
  type SigningState,
  type SigningStatus,
  type SigningView,
} from "@clinsign/contracts";
import { and, eq, gt, isNull, organizations, OrgScope, signatureRequests, signingCredentials } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding } from "../branding/branding";
import { inTransaction, type OrgContext, type RequestMeta, type Services } from "../context";
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
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, sealSignatureRequest } from "./seal";
import { signedCopyOf } from "./signed-copy";

/** How long the portal page may act after opening a link (never beyond the request's expiry). */
const SESSION_MINUTES = 60;
/** The sync attempt normally seals at once; the job is the safety net if it fails or the process dies. */
const SEAL_JOB_DELAY_MS = 30_000;
const MAX_SIGNATURE_PNG_BYTES = 1024 * 1024;

/** The patient acting through the portal, in the request's organization. */
function portalContext(
  services: Services,
  request: RequestMeta,
  row: { organizationId: string; id: string },
): OrgContext {
  return {
    services,
    scope: new OrgScope(services.db, row.organizationId),
    actor: { type: "signer", id: row.id },
    request,
  };
}

/*
 * Signing links, tickets and sessions are bearer credentials that name their organization
 * themselves: these lookups by the hash of an unguessable secret are the only tenant reads
 * outside an OrgScope, and everything after them runs in the found organization's scope.
 */
async function requestByTokenHash(services: Services, tokenHash: string) {
  const [row] = await services.db
    .select()
    .from(signatureRequests)
    .where(eq(signatureRequests.tokenHash, tokenHash))
    .limit(1);
  return row;
}

async function consumeTicket(services: Services, ticket: string) {
  const [credential] = await services.db
    .update(signingCredentials)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(signingCredentials.secretHash, sha256Hex(ticket)),
        eq(signingCredentials.kind, "ticket"),
        isNull(signingCredentials.usedAt),
        gt(signingCredentials.expiresAt, new Date()),
      ),
    )
    .returning();
  return credential;
}

async function sessionCredential(services: Services, sessionToken: string) {
  const [credential] = await services.db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.secretHash, sha256Hex(sessionToken)),
        eq(signingCredentials.kind, "session"),
        gt(signingCredentials.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return credential;
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
  const [org] = await ctx.scope.db
    .select({ signedCopyDays: organizations.signedCopyDays })
    .from(organizations)
    .where(eq(organizations.id, ctx.scope.organizationId));
  return org?.signedCopyDays ?? 0;
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
 * one-time ticket from A4. A `ready` request is marked `opened` with its document version pinned,
 * and a signing session is issued for the page to keep. A signed request whose copy period has
 * not ended also gets a session: it serves only the signer's copy (`signing.status`,
 * `signing.signedDocument`); signing and declining refuse it.
 */
export async function openSigning(services: Services, request: RequestMeta, raw: unknown): Promise<SigningView> {
  const input = openSigningInput.parse(raw);
  let requestId: string;
  let organizationId: string;
  if ("ticket" in input) {
    const ticket = await consumeTicket(services, input.ticket);
    if (!ticket) return emptyView("unknown");
    requestId = ticket.requestId;
    organizationId = ticket.organizationId;
  } else {
    const row = await requestByTokenHash(services, sha256Hex(input.token));
    if (!row) return emptyView("unknown");
    const [org] = await services.db.select().from(organizations).where(eq(organizations.id, row.organizationId));
    if (org?.requireSessionVerification) return emptyView("verification_required");
    requestId = row.id;
    organizationId = row.organizationId;
  }
  const ctx = portalContext(services, request, { organizationId, id: requestId });
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
          via: "ticket" in input ? "ticket" : "link",
        },
        { patient_id: row.patientId },
      );
    }
    const version = await versionOf(tx, row);
    const copy = signedCopyOf(row, await signedCopyDaysOf(tx));
    let sessionToken: string | null = null;
    let sessionExpiresAt: Date | null = null;
    if (state === "ready" || (copy.until && copy.state !== "expired")) {
      // A session to sign ends with the request's expiry; one for the copy with the copy period.
      const end = state === "ready" ? row.expiresAt : copy.until!;
      sessionToken = randomSecret(32);
      sessionExpiresAt = new Date(Math.min(Date.now() + SESSION_MINUTES * 60_000, end.getTime()));
      await tx.scope.insert(signingCredentials, {
        requestId: row.id,
        kind: "session",
        secretHash: sha256Hex(sessionToken),
        expiresAt: sessionExpiresAt,
        ip: request.ip,
        userAgent: request.userAgent,
      });
    }
    return {
      state: stateOf(row),
      sessionToken,
      sessionExpiresAt: sessionExpiresAt?.toISOString() ?? null,
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
    };
  });
}

/** Resolves a signing session to its request, or 401: the page must open the link again. */
async function resolveSession(services: Services, request: RequestMeta, sessionToken: string) {
  const credential = await sessionCredential(services, sessionToken);
  if (!credential) throw new AppError("unauthorized", "the signing session has ended; open the signing link again");
  return {
    credential,
    ctx: portalContext(services, request, { organizationId: credential.organizationId, id: credential.requestId }),
  };
}

/** Why the patient cannot act on this request now, or null when it is open for signing. */
function refusal(row: SignatureRequestRow): AppError | null {
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
export async function getSigningDocument(services: Services, request: RequestMeta, raw: { sessionToken: string }) {
  const { credential, ctx } = await resolveSession(services, request, raw.sessionToken);
  const row = await inTransaction(ctx, async (tx) =>
    expireIfDue(tx, await findSignatureRequest(tx, credential.requestId, true)),
  );
  const refused = refusal(row);
  if (refused) throw refused;
  const version = await versionOf(ctx, row);
  const bytes = await services.storage.get(version.storageKey);
  if (!bytes) throw new Error(`stored PDF of document ${row.documentId} version ${version.version} is missing`);
  return {
    contentType: "application/pdf" as const,
    base64: bytes.toString("base64"),
    sha256: version.sha256,
    version: version.version,
  };
}

/** The request a session belongs to, as it stands now (an open request past its expiry is expired first). */
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
export async function getSigningStatus(
  services: Services,
  request: RequestMeta,
  raw: { sessionToken: string },
): Promise<SigningStatus> {
  const { credential, ctx } = await resolveSession(services, request, raw.sessionToken);
  const row = await currentRequest(ctx, credential.requestId);
  const copy = signedCopyOf(row, await signedCopyDaysOf(ctx));
  return { state: stateOf(row), signedCopy: copy.state, signedCopyUntil: copy.until?.toISOString() ?? null };
}

/**
 * `signing.signedDocument`: the sealed PDF, the signer's copy, while the organization's copy
 * period lasts (`signedCopyDays` after signing; 409 `signed_copy_expired` after it). The session
 * is one the page got from `signing.open` (by link, or by A4 ticket where the organization
 * requires it), so the copy sits behind the same checks as signing. Each answer with the PDF is
 * audited as `signature.copy_downloaded` (actor `portal`, with IP and user agent). Until sealing
 * has finished the state is `sealing` and there is no PDF yet; other states (declined, expired,
 * …) answer without a PDF.
 */
export async function getSignedSigningDocument(
  services: Services,
  request: RequestMeta,
  raw: { sessionToken: string },
): Promise<SignedSigningDocument> {
  const { credential, ctx } = await resolveSession(services, request, raw.sessionToken);
  const row = await currentRequest(ctx, credential.requestId);
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
  const bytes = await services.storage.get(row.signedPdfKey);
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
 * (with its audit entry and the durable sealing job), then seals right away. A second submission
 * finds the request already signed and signs nothing. If sealing fails, the request stays
 * visibly `sealing` and the job retries it.
 */
export async function signRequest(
  services: Services,
  request: RequestMeta,
  raw: unknown,
): Promise<{ state: "sealing" | "completed" }> {
  const input = signInput.parse(raw);
  const { credential, ctx } = await resolveSession(services, request, input.sessionToken);
  const png = input.signature.kind === "drawn" ? decodeSignaturePng(input.signature.dataUrl) : null;
  // Stored before the transaction (file storage must not run inside it); removed if unused.
  const image = png ? await services.storage.put("signatures", png) : null;
  let outcome: { state: "sealing" | "completed"; fresh: boolean };
  try {
    outcome = await inTransactionThenRefuse(ctx, async (tx) => {
      const row = await expireIfDue(tx, await findSignatureRequest(tx, credential.requestId, true));
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
      await enqueueJob(tx.scope.db, {
        organizationId: row.organizationId,
        kind: SEAL_JOB,
        payload: { organizationId: row.organizationId, signatureId: row.id },
        runAt: new Date(Date.now() + SEAL_JOB_DELAY_MS),
        maxAttempts: SEAL_MAX_ATTEMPTS,
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
  try {
    const result = await sealSignatureRequest(services, credential.organizationId, credential.requestId);
    return { state: result === "completed" ? "completed" : "sealing" };
  } catch (error) {
    services.log.warn({ err: error, signatureId: credential.requestId }, "sealing failed; the seal job will retry");
    return { state: "sealing" };
  }
}

/** `signing.decline`: the patient declines; repeated calls answer the same. */
export async function declineRequest(
  services: Services,
  request: RequestMeta,
  raw: unknown,
): Promise<{ state: "declined" }> {
  const input = declineInput.parse(raw);
  const { credential, ctx } = await resolveSession(services, request, input.sessionToken);
  return inTransactionThenRefuse(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, credential.requestId, true));
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
