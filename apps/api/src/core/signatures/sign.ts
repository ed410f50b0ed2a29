import type { z } from "zod";
import {
  fitsPixelBudget,
  readImageSize,
  SIGNATURE_IMAGE_LIMITS,
  type PatientLanguage,
  type signInput,
} from "@clinsign/contracts";
import { eq, signatureRequests, signatureSigners } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { afterCommit, type OrgContext } from "../context";
import { AppError } from "../errors";
import type { StoredFile } from "../files/storage";
import { enqueueJob } from "../jobs/queue";
import { expireIfDue, inTransactionThenRefuse } from "./requests";
import { findSignatureRequest, pinnedDocumentIdOf, signerRequestId, type SignatureRequestRow } from "./request-read";
import { SEAL_JOB, SEAL_MAX_ATTEMPTS, sealContext, sealSignatureRequest } from "./seal";
import { advanceTurns, allRequiredSigned, signerInAudit, signersOnTurn, skipUnsigned, waitingForOf } from "./signers";
import { openRequestBy, partyOf, refusal, type Party, type SignerPick } from "./signing-party";

/**
 * Signing itself: the patient or a link signer (`signing.sign`) or the named staff signer
 * (`signatures.signAsStaff`) signs, in named steps — check and store the drawn image, record the
 * signature in one transaction (the request's row for one patient, the signer's row with several),
 * queue the seal, seal after commit.
 */

/** `signing.sign`'s input as the door parsed it. */
export type SignInput = z.output<typeof signInput>;

/** The sync attempt normally seals at once; the job is the safety net if it fails or the process dies. */
const SEAL_JOB_DELAY_MS = 30_000;
const MAX_SIGNATURE_PNG_BYTES = 1024 * 1024;

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
  return signAs(ctx, signerRequestId(ctx), "portal", input.signature, {
    language: input.language ?? null,
    offline: input.signedOnDeviceAt ? { signedOnDeviceAt: new Date(input.signedOnDeviceAt) } : null,
    actionId: input.actionId ?? null,
  });
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
      const sealing = sealContext(tx, row.id);
      outcome.sealed = (await sealSignatureRequest(sealing, { id: row.id })) === "completed";
    } catch (error) {
      services.log.warn({ err: error, signatureId: row.id }, "sealing failed; the seal job will retry");
    }
  });
  return outcome;
}

/** How the signing page made a signature: its language, and whether it waited offline on the device. */
interface SigningCircumstances {
  language: PatientLanguage | null;
  /** Signed offline: the device's time of the signature (a claim; the arrival is `signed_at`). */
  offline: { signedOnDeviceAt: Date } | null;
  /** The device's id of this signing (audited): a resend after a lost answer is the same action. */
  actionId: string | null;
}

const AT_THE_DESK: SigningCircumstances = { language: null, offline: null, actionId: null };

/** A signature being made: as the door sent it, its stored image (a drawn one) and how it was made. */
interface Signature extends SigningCircumstances {
  value: SignatureValue;
  image: StoredFile | null;
}

/** What signing's transaction did: `fresh` when it recorded a signature now, `seal` when it queued sealing. */
interface RecordedSignature {
  state: SignOutcome["state"];
  fresh: boolean;
  seal?: { sealed: boolean };
}

async function signAs(
  ctx: OrgContext,
  signatureRequestId: string,
  pick: SignerPick,
  value: SignatureValue,
  circumstances: SigningCircumstances = AT_THE_DESK,
): Promise<SignOutcome> {
  const signature = await storeSignatureImage(ctx, value, circumstances);
  let recorded: RecordedSignature;
  try {
    recorded = await inTransactionThenRefuse(ctx, (tx) => recordSignature(tx, signatureRequestId, pick, signature));
  } catch (error) {
    await discardSignatureImage(ctx, signature);
    throw error;
  }
  if (!recorded.fresh) {
    await discardSignatureImage(ctx, signature);
    return { state: recorded.state };
  }
  if (recorded.state === "signed") return { state: "signed" };
  // Sealed by now unless the seal failed (the job retries) or an outer transaction is still open.
  return { state: recorded.seal?.sealed ? "completed" : "sealing" };
}

/** Checks a drawn signature's PNG and stores it, before the transaction (file storage must not run inside it). */
async function storeSignatureImage(
  ctx: OrgContext,
  value: SignatureValue,
  circumstances: SigningCircumstances,
): Promise<Signature> {
  const png = value.kind === "drawn" ? decodeSignaturePng(value.dataUrl) : null;
  const image = png ? await ctx.services.storage.put("signatures", png) : null;
  return { value, image, ...circumstances };
}

/** Removes the stored image of a signature that was refused or not needed (the request was signed already). */
async function discardSignatureImage(ctx: OrgContext, signature: Signature): Promise<void> {
  if (signature.image) await ctx.services.storage.delete(signature.image.key).catch(() => {});
}

/** The columns a signature fills: the request's row (one patient) or the signer's (several signers). */
function signatureColumns({ value, image, language, offline }: Signature) {
  return {
    signatureMethod: value.kind,
    signatureImageKey: image?.key ?? null,
    typedName: value.kind === "typed" ? value.name : null,
    signingLanguage: language,
    signedOnDeviceAt: offline?.signedOnDeviceAt ?? null,
  };
}

/** The `signature.signed` audit entry; several signers add who signed (`extra`). */
function signedAuditEntry(
  { value, image, offline, actionId }: Signature,
  row: SignatureRequestRow,
  extra: Record<string, unknown> = {},
) {
  return {
    action: "signature.signed" as const,
    metadata: {
      signatureId: row.id,
      documentId: pinnedDocumentIdOf(row),
      version: row.pinnedVersion,
      method: value.kind,
      consent: true,
      ...(image && { signatureImageSha256: image.sha256 }),
      ...(offline && { signedOffline: true, signedOnDeviceAt: offline.signedOnDeviceAt.toISOString() }),
      ...(actionId && { actionId }),
      ...extra,
    },
  };
}

/**
 * Signing's transaction: the request (an open one past its expiry is expired first) and the
 * caller's place in it. A request already sealing or completed, or a signer who has signed,
 * signs nothing again; a refusal is answered after commit (the expiry stands).
 */
async function recordSignature(
  tx: OrgContext,
  signatureRequestId: string,
  pick: SignerPick,
  signature: Signature,
): Promise<RecordedSignature | AppError> {
  const row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
  const party = await partyOf(tx, row, pick, true);
  if (row.status === "sealing" || row.status === "completed") return { state: row.status, fresh: false };
  if (party?.me.status === "signed") return { state: "signed", fresh: false };
  const refused = refusal(row, party);
  if (refused) return refused;
  if (!party) return recordPatientSignature(tx, row, signature);
  return recordSignerSignature(tx, row, party, pick, signature);
}

/** One patient: the request's row takes the signature and moves to `sealing`; the seal is queued. */
async function recordPatientSignature(
  tx: OrgContext,
  row: SignatureRequestRow,
  signature: Signature,
): Promise<RecordedSignature> {
  await tx.scope.update(
    signatureRequests,
    {
      status: "sealing",
      signedAt: new Date(),
      ...signatureColumns(signature),
      signerIp: tx.request.ip,
      signerUserAgent: tx.request.userAgent,
      updatedAt: new Date(),
    },
    eq(signatureRequests.id, row.id),
  );
  await recordAudit(tx, signedAuditEntry(signature, row));
  const seal = await startSealing(tx, row);
  return { state: "sealing", fresh: true, seal };
}

/**
 * Several signers: on the signer's turn, their row takes the signature; the next turns begin, or,
 * with the last required signature, the request moves to `sealing` and the seal is queued.
 */
async function recordSignerSignature(
  tx: OrgContext,
  row: SignatureRequestRow,
  { signers, me }: Party,
  pick: SignerPick,
  signature: Signature,
): Promise<RecordedSignature | AppError> {
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
      ...signatureColumns(signature),
      ip: tx.request.ip,
      userAgent: tx.request.userAgent,
      updatedAt: now,
    },
    eq(signatureSigners.id, me.id),
  );
  me.status = "signed";
  me.signedAt = now;
  await recordAudit(tx, signedAuditEntry(signature, row, signerInAudit(me)));
  const opened = await openRequestBy(tx, row, me, pick === "staff" ? "console" : "link");
  if (!allRequiredSigned(signers)) {
    await advanceTurns(tx, row.signingOrder, signers);
    return { state: "signed", fresh: true };
  }
  // The last required signature: the request is sealed once, with every signer's fields.
  await skipUnsigned(tx, signers);
  await tx.scope.update(
    signatureRequests,
    { status: "sealing", signedAt: now, updatedAt: now },
    eq(signatureRequests.id, opened.id),
  );
  const seal = await startSealing(tx, opened);
  return { state: "sealing", fresh: true, seal };
}
