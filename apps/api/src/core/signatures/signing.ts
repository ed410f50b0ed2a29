import type { z } from "zod";
import {
  fitsPixelBudget,
  readImageSize,
  SIGNATURE_IMAGE_LIMITS,
  type declineInput,
  type OpenSigningInput,
  type PatientLanguage,
  type SignedSigningDocument,
  type signInput,
  type SigningState,
  type SigningStatus,
  type SigningView,
} from "@clinsign/contracts";
import {
  and,
  eq,
  inArray,
  signatureRequests,
  signatureSigners,
  signingCredentials,
  documents,
  documentVersions,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { getBranding } from "../branding/branding";
import {
  afterCommit,
  contextFor,
  inTransaction,
  nowOf,
  type OrgContext,
  type RequestMeta,
  type Services,
} from "../context";
import { consumeSigningTicket, requestOfSigningLink, SIGNING_PASS_KIND } from "../credentials/signing";
import { randomSecret, sha256Hex } from "../crypto";
import { findDocument } from "../documents/documents";
import { AppError } from "../errors";
import { organizationNameOf } from "../organizations/profile";
import { enqueueJob } from "../jobs/queue";
import { recordSignatureEvent } from "./events";
import { expireIfDue, inTransactionThenRefuse } from "./requests";
import {
  findSignatureRequest,
  isPastExpiry,
  documentForLanguage,
  pinnedDocumentIdColumn,
  pinnedDocumentIdOf,
  versionForLanguage,
  versionOf,
  type SignatureRequestRow,
  signerRequestId,
} from "./request-read";
import { pageImagesOf } from "./page-images";
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, sealContext, sealSignatureRequest } from "./seal";
import { signedCopyOf } from "./signed-copy";
import {
  advanceTurns,
  allRequiredSigned,
  fieldsOfRole,
  markSignerOpened,
  partyView,
  signerInAudit,
  signerOfContext,
  signersOf,
  signersOnTurn,
  skipUnsigned,
  staffSignerOf,
  waitingForOf,
  type SignerRow,
} from "./signers";

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

function stateOf(row: SignatureRequestRow, me: SignerRow | null = null): SigningState {
  if (row.visibility === "draft") return "unavailable";
  switch (row.status) {
    case "pending":
    case "opened":
      // Several signers: where this signer stands in the order.
      if (me?.status === "signed") return "signed";
      if (me?.status === "waiting") return "waiting";
      return "ready";
    default:
      return row.status;
  }
}

/** The request's signers (several signers) and the one this context acts as; null for a one-patient request. */
interface Party {
  signers: SignerRow[];
  me: SignerRow;
}

/**
 * A request with several signers: its signers and the one the caller is. `pick` chooses (the
 * portal: the link's signer or the patient; the console: the named staff user). A request with
 * several signers that the caller is no signer of is refused; one-patient requests answer null.
 */
async function partyOf(
  tx: OrgContext,
  row: SignatureRequestRow,
  pick: SignerPick,
  forUpdate = false,
): Promise<Party | null> {
  const signers = await signersOf(tx, row.id, forUpdate);
  if (signers.length === 0) {
    if (pick === "staff")
      throw new AppError("forbidden", "this request is signed by the patient alone", {
        reason: "not_the_named_signer",
      });
    return null;
  }
  const me = pick === "staff" ? staffSignerOf(tx, signers) : signerOfContext(tx, signers);
  if (!me) throw new AppError("not_found", "this signing link does not belong to a signer of the request");
  return { signers, me };
}

/** Who acts: the portal's signer (link, ticket, pass) or the staff member in the console. */
type SignerPick = "portal" | "staff";

/** Several signers: the request becomes `opened` when its first signer opens it (the version was pinned at creation). */
async function openRequestBy(tx: OrgContext, row: SignatureRequestRow, me: SignerRow, via: string) {
  if (row.status !== "pending") return row;
  const [opened] = await tx.scope
    .update(
      signatureRequests,
      { status: "opened", openedAt: new Date(), updatedAt: new Date() },
      eq(signatureRequests.id, row.id),
      eq(signatureRequests.status, "pending"),
    )
    .returning();
  if (!opened) return row;
  await recordSignatureEvent(
    tx,
    "signature.opened",
    {
      signatureId: row.id,
      documentId: pinnedDocumentIdOf(row),
      version: row.pinnedVersion,
      via,
      ...signerInAudit(me),
    },
    { patient_id: row.patientId },
  );
  return opened;
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
  return openForSigner(contextFor(services, { kind: "signer", ...grant }, request), {
    via,
    language: input.language ?? null,
  });
}

/**
 * A `ready` request is marked `opened` with its document version pinned, and a signing pass is
 * issued for the page to keep. A signed request whose copy period has not ended also gets a
 * pass: it serves only the signer's copy (`signing.status`, `signing.signedDocument`); signing
 * and declining refuse it.
 */
async function openForSigner(
  ctx: OrgContext,
  input: { via: "link" | "ticket"; language: PatientLanguage | null },
): Promise<SigningView> {
  // A4 confirms the patient through their portal; a legal representative's or witness's own link
  // (several signers) has no such portal session and is their credential.
  if (input.via === "link" && !ctx.signerId && (await ctx.scope.organization()).requireSessionVerification)
    return emptyView("verification_required");
  const signatureRequestId = signerRequestId(ctx);
  const { request } = ctx;
  return inTransaction(ctx, async (tx) => {
    let row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
    const party = await partyOf(tx, row, "portal", true).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "not_found") return "unknown" as const;
      throw error;
    });
    if (party === "unknown") return emptyView("unknown");
    const state = stateOf(row, party?.me);
    if (state === "unknown" || state === "unavailable" || state === "expired") return emptyView(state);
    if (party && state === "ready") {
      await markSignerOpened(tx, row, party.me);
      row = await openRequestBy(tx, row, party.me, input.via);
    } else if (!party && row.status === "pending") {
      // The document for the page's language (issue 19) and its newest version are pinned now;
      // later opens in other languages keep them (documentForLanguage answers the pin).
      const doc = await findDocument(tx, documentForLanguage(row, input.language));
      const [opened] = await tx.scope
        .update(
          signatureRequests,
          {
            status: "opened",
            pinnedDocumentId: doc.id,
            pinnedVersion: doc.currentVersion,
            openedAt: new Date(),
            updatedAt: new Date(),
          },
          eq(signatureRequests.id, row.id),
        )
        .returning();
      row = opened!;
      await recordSignatureEvent(
        tx,
        "signature.opened",
        {
          signatureId: row.id,
          documentId: doc.id,
          version: doc.currentVersion,
          via: input.via,
          ...(row.documentsByLanguage && { language: input.language, requestedDocumentId: row.documentId }),
        },
        { patient_id: row.patientId },
      );
    }
    const version = await versionOf(tx, row);
    const copy = signedCopyOf(row, await signedCopyDaysOf(tx));
    let pass: SigningPass | null = null;
    const open = state === "ready" || state === "waiting" || state === "signed";
    if (open || (copy.until && copy.state !== "expired")) {
      // A pass to sign ends with the request's expiry; one for the copy with the copy period.
      const end = open ? row.expiresAt : copy.until!;
      pass = {
        secret: randomSecret(32),
        expiresAt: new Date(Math.min(Date.now() + SIGNING_PASS_MINUTES * 60_000, end.getTime())),
      };
      await tx.scope.insert(signingCredentials, {
        signatureRequestId: row.id,
        signerId: tx.signerId ?? null,
        kind: SIGNING_PASS_KIND,
        secretHash: sha256Hex(pass.secret),
        expiresAt: pass.expiresAt,
        ip: request.ip,
        userAgent: request.userAgent,
      });
    }
    return signerView(tx, row, version, party, copy, pass);
  });
}

interface SigningPass {
  secret: string;
  expiresAt: Date;
}

/** What the signing page shows of a request to one signer: `signing.open`'s answer, and the preview's. */
async function signerView(
  ctx: OrgContext,
  row: SignatureRequestRow,
  version: Awaited<ReturnType<typeof versionOf>>,
  party: Party | null,
  copy: ReturnType<typeof signedCopyOf>,
  pass: SigningPass | null,
): Promise<SigningView> {
  const state = stateOf(row, party?.me);
  return {
    state,
    // The wire still calls the signing pass a session token (interface document).
    sessionToken: pass?.secret ?? null,
    sessionExpiresAt: pass?.expiresAt.toISOString() ?? null,
    documentTitle: version.title,
    documentDescription: version.description,
    institutionId: row.institutionExternalId,
    organizationName: await organizationNameOf(ctx),
    branding: await getBranding(ctx, row.institutionId),
    pageCount: version.pageCount,
    pageSizes: version.pageSizes,
    fields: party ? fieldsOfRole(version.fields, party.me.role) : version.fields,
    expiresAt: row.expiresAt.toISOString(),
    signedCopy: copy.state,
    signedCopyUntil: copy.until?.toISOString() ?? null,
    ...(party && { party: await partyView(ctx, row, version.fields, party.signers, party.me) }),
    pageImages: state === "ready" ? await pageImagesOf(ctx, row, version) : null,
  };
}

/**
 * `signing.preview`: what the signing page shows for a link that is open for signing, read
 * without acting on it — no pass issued, nothing marked opened, nothing audited — so the web
 * server can put the document's first page into the page's HTML (it draws before the page's
 * scripts have loaded), and a link previewer fetching the URL changes nothing. Null for anything
 * but a request ready for this signer: every other state is `signing.open`'s to tell.
 */
export async function previewSigning(
  services: Services,
  request: RequestMeta,
  input: { token: string; language?: PatientLanguage },
): Promise<SigningView | null> {
  const grant = await requestOfSigningLink(services, input.token);
  if (!grant) return null;
  const ctx = contextFor(services, { kind: "signer", ...grant }, request);
  if (!ctx.signerId && (await ctx.scope.organization()).requireSessionVerification) return null;
  const row = await findSignatureRequest(ctx, signerRequestId(ctx));
  if (isPastExpiry(row, nowOf(services))) return null;
  const party = await partyOf(ctx, row, "portal").catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") return "unknown" as const;
    throw error;
  });
  if (party === "unknown" || stateOf(row, party?.me) !== "ready") return null;
  // The document `signing.open` would pin for this language (issue 19): the same choice.
  const version = await versionForLanguage(ctx, row, input.language);
  return signerView(ctx, row, version, party, signedCopyOf(row, await signedCopyDaysOf(ctx)), null);
}

/**
 * Why the patient cannot act on this request now, or null when it is open for signing. A request
 * with several signers is open from its creation (its version is pinned then): `pending` too.
 */
export function refusal(row: SignatureRequestRow, party: Party | null = null): AppError | null {
  if (row.visibility === "draft")
    return new AppError("conflict", "this signature request is not available", { reason: "request_unavailable" });
  if (row.status !== "opened" && !(party && row.status === "pending")) {
    return new AppError("conflict", `this signature request is ${row.status}`, {
      reason: `request_${row.status}`,
      status: row.status,
    });
  }
  return null;
}

/** `signing.document`: the pinned PDF version the patient is asked to sign, as base64. */
export async function getSigningDocument(ctx: OrgContext) {
  return documentFor(ctx, signerRequestId(ctx), "portal");
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

/** The signer's request as it stands now (an open request past its expiry is expired first). */
async function currentRequest(ctx: OrgContext, signatureRequestId: string): Promise<SignatureRequestRow> {
  // A plain read (the page polls); only an open request past its expiry needs the locked path.
  const row = await findSignatureRequest(ctx, signatureRequestId);
  if (!isPastExpiry(row)) return row;
  return inTransaction(ctx, async (tx) => expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true)));
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

/** The signature as the door parsed it (portal and console alike). */
type SignatureValue = SignInput["signature"];
type SignOutcome = { state: "sealing" | "completed" | "signed" };

/**
 * `signing.sign`: records the signature and moves the request to `sealing` in one transaction
 * (with its audit entry and the durable sealing job); once that commits, sealing starts right
 * away (an after-commit effect, so a caller's outer transaction that rolls back seals nothing).
 * A second submission finds the request already signed and signs nothing. If sealing fails, the
 * request stays visibly `sealing` and the job retries it. With several signers, the signature is
 * the signer's; the request is sealed when the last required one is in (until then: `signed`).
 */
export async function signRequest(ctx: OrgContext, input: SignInput): Promise<SignOutcome> {
  return signAs(ctx, signerRequestId(ctx), "portal", input.signature, input.language ?? null);
}

/**
 * `signatures.signAsStaff`: the named staff signer (e.g. the informing physician) signs in the
 * console; anyone else is refused (403 `not_the_named_signer`).
 */
export async function signAsStaff(
  ctx: OrgContext,
  input: { id: string; signature: SignatureValue },
): Promise<SignOutcome> {
  return signAs(ctx, input.id, "staff", input.signature);
}

/** Queues the seal (the durable job) and seals right after commit; `sealed` tells whether that finished. */
async function startSealing(tx: OrgContext, row: SignatureRequestRow): Promise<{ sealed: boolean }> {
  const { services } = tx;
  const outcome = { sealed: false };
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
      outcome.sealed = (await sealSignatureRequest(sealing, { id: row.id })) === "completed";
    } catch (error) {
      services.log.warn({ err: error, signatureId: row.id }, "sealing failed; the seal job will retry");
    }
  });
  return outcome;
}

async function signAs(
  ctx: OrgContext,
  signatureRequestId: string,
  pick: SignerPick,
  signature: SignatureValue,
  language: PatientLanguage | null = null,
): Promise<SignOutcome> {
  const { services, request } = ctx;
  const png = signature.kind === "drawn" ? decodeSignaturePng(signature.dataUrl) : null;
  // Stored before the transaction (file storage must not run inside it); removed if unused.
  const image = png ? await services.storage.put("signatures", png) : null;
  let seal: { sealed: boolean } | null = null;
  let outcome: SignOutcome & { fresh: boolean };
  const recorded = {
    signatureMethod: signature.kind,
    signatureImageKey: image?.key ?? null,
    typedName: signature.kind === "typed" ? signature.name : null,
    signingLanguage: language,
  };
  const audited = (row: SignatureRequestRow, extra: Record<string, unknown> = {}) => ({
    action: "signature.signed" as const,
    metadata: {
      signatureId: row.id,
      documentId: pinnedDocumentIdOf(row),
      version: row.pinnedVersion,
      method: signature.kind,
      consent: true,
      ...(image && { signatureImageSha256: image.sha256 }),
      ...extra,
    },
  });
  try {
    outcome = await inTransactionThenRefuse(ctx, async (tx) => {
      const row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
      const party = await partyOf(tx, row, pick, true);
      if (row.status === "sealing" || row.status === "completed") return { state: row.status, fresh: false };
      if (party?.me.status === "signed") return { state: "signed" as const, fresh: false };
      const refused = refusal(row, party);
      if (refused) return refused;
      if (!party) {
        await tx.scope.update(
          signatureRequests,
          {
            status: "sealing",
            signedAt: new Date(),
            ...recorded,
            signerIp: request.ip,
            signerUserAgent: request.userAgent,
            updatedAt: new Date(),
          },
          eq(signatureRequests.id, row.id),
        );
        await recordAudit(tx, audited(row));
        seal = await startSealing(tx, row);
        return { state: "sealing" as const, fresh: true };
      }
      const { signers, me } = party;
      if (!signersOnTurn(row.signingOrder, signers).has(me.id)) {
        const waitingFor = waitingForOf(row.signingOrder, signers, me);
        return new AppError("conflict", `it is not your turn yet: waiting for ${waitingFor.join(", ")}`, {
          reason: "not_your_turn",
          waitingFor,
        });
      }
      const now = new Date();
      await tx.scope.update(
        signatureSigners,
        {
          status: "signed",
          signedAt: now,
          ...recorded,
          ip: request.ip,
          userAgent: request.userAgent,
          updatedAt: now,
        },
        eq(signatureSigners.id, me.id),
      );
      me.status = "signed";
      me.signedAt = now;
      await recordAudit(tx, audited(row, signerInAudit(me)));
      const opened = await openRequestBy(tx, row, me, pick === "staff" ? "console" : "link");
      if (!allRequiredSigned(signers)) {
        await advanceTurns(tx, row.signingOrder, signers);
        return { state: "signed" as const, fresh: true };
      }
      // The last required signature: the request is sealed once, with every signer's fields.
      await skipUnsigned(tx, signers);
      await tx.scope.update(
        signatureRequests,
        { status: "sealing", signedAt: now, updatedAt: now },
        eq(signatureRequests.id, opened.id),
      );
      seal = await startSealing(tx, opened);
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
  if (outcome.state === "signed") return { state: "signed" };
  // Sealed by now unless the seal failed (the job retries) or an outer transaction is still open.
  return { state: (seal as { sealed: boolean } | null)?.sealed ? "completed" : "sealing" };
}

/** `signing.decline`: the patient (or, with several signers, the link's signer) declines; repeated calls answer the same. */
export async function declineRequest(ctx: OrgContext, input: DeclineInput): Promise<{ state: "declined" }> {
  return declineAs(ctx, signerRequestId(ctx), "portal", input.reason);
}

/** `signatures.declineAsStaff`: the named staff signer declines; it stops the request like any signer's decline. */
export async function declineAsStaff(ctx: OrgContext, input: { id: string; reason?: string }) {
  return declineAs(ctx, input.id, "staff", input.reason);
}

async function declineAs(
  ctx: OrgContext,
  signatureRequestId: string,
  pick: SignerPick,
  reason: string | undefined,
): Promise<{ state: "declined" }> {
  return inTransactionThenRefuse(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
    const party = await partyOf(tx, row, pick, true);
    if (row.status === "declined") return { state: "declined" as const };
    const refused = refusal(row, party);
    if (refused) return refused;
    if (party?.me.status === "signed")
      return new AppError("conflict", "you have already signed this request", { reason: "already_signed" });
    const now = new Date();
    if (party)
      await tx.scope.update(
        signatureSigners,
        { status: "declined", declinedAt: now, declineReason: reason || null, updatedAt: now },
        eq(signatureSigners.id, party.me.id),
      );
    await tx.scope.update(
      signatureRequests,
      {
        status: "declined",
        declinedAt: now,
        declineReason: reason || null,
        ...(party && { declinedRole: party.me.role }),
        updatedAt: now,
      },
      eq(signatureRequests.id, row.id),
    );
    await recordSignatureEvent(
      tx,
      "signature.declined",
      {
        signatureId: row.id,
        documentId: pinnedDocumentIdOf(row),
        reason: reason || null,
        ...(party && signerInAudit(party.me)),
      },
      // One-patient requests keep the body they always had; several signers add who declined.
      { patient_id: row.patientId, reason: reason || null, ...(party && { role: party.me.role }) },
    );
    return { state: "declined" as const };
  });
}

/**
 * `signatures.staffSigningView`: what the named staff signer sees in the console, the same view
 * as the portal's (their fields, the others' signatures, whose turn). Opening it on their turn
 * counts as opening (`signature.signer_opened`). No signing pass: the staff session is the credential.
 */
export async function staffSigningView(ctx: OrgContext, input: { id: string }): Promise<SigningView> {
  return inTransactionThenRefuse(ctx, async (tx) => {
    let row = await expireIfDue(tx, await findSignatureRequest(tx, input.id, true));
    const party = (await partyOf(tx, row, "staff", true))!;
    const state = stateOf(row, party.me);
    if (state === "unavailable" || state === "expired")
      return { ...emptyView(state), expiresAt: row.expiresAt.toISOString() };
    if (state === "ready") {
      await markSignerOpened(tx, row, party.me);
      row = await openRequestBy(tx, row, party.me, "console");
    }
    const version = await versionOf(tx, row);
    return {
      ...emptyView(stateOf(row, party.me)),
      documentTitle: version.title,
      documentDescription: version.description,
      institutionId: row.institutionExternalId,
      organizationName: await organizationNameOf(tx),
      branding: await getBranding(tx, row.institutionId),
      pageCount: version.pageCount,
      pageSizes: version.pageSizes,
      fields: fieldsOfRole(version.fields, party.me.role),
      expiresAt: row.expiresAt.toISOString(),
      party: await partyView(tx, row, version.fields, party.signers, party.me),
    };
  });
}

/** `signatures.staffSigningDocument`: the pinned PDF for the named staff signer. */
export async function staffSigningDocument(ctx: OrgContext, input: { id: string }) {
  return documentFor(ctx, input.id, "staff");
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
