import { desc, eq, jobs, signatureRequests, sql } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { AppError } from "../errors";
import { putAll, removeFiles, type StoredFile } from "../files/storage";
import { enqueueJob } from "../jobs/queue";
import { sealSeconds, secondsSince } from "../metrics/metrics";
import { afterCommit, inTransaction, systemContext, type OrgContext } from "../context";
import { scheduleRetimestamp } from "./retimestamp";
import { recordSignatureEvent } from "./events";
import { findSignatureRequest, metadataJsonUrl, signedPdfUrl, type SignatureRequestRow } from "./request-read";
import { loadSealInputs, type SealInputs } from "./seal-inputs";
import type { PadesLevel } from "../pdf-seal/ltv";
import { sealAndFindDigest, stampWithAuditPage, type SealedPdf } from "./sealed-pdf";
import { sealedMetadata } from "./seal-metadata";

/**
 * Sealing a signed request: `sealSignatureRequest` (inline after signing, and the seal job) runs
 * `produceSealedResult`'s named steps — load (seal-inputs.ts), stamp and audit page, seal and LTV
 * (sealed-pdf.ts), metadata (seal-metadata.ts), store, commit — and counts failed attempts; the
 * seal job's bookkeeping (`latestSealJob`, `markSealGaveUp`) and staff's `sealAgain`.
 */

/** Job kind of sealing retries. */
export const SEAL_JOB = "signature.seal";
/** Attempts of one seal job (about 5 hours with its backoff); then it ends as `failed`. */
export const SEAL_MAX_ATTEMPTS = 12;

/** The newest seal job of a request: its state tells staff whether sealing still retries. */
export async function latestSealJob(ctx: OrgContext, signatureId: string) {
  const [job] = await ctx.scope
    .select(jobs, eq(jobs.kind, SEAL_JOB), sql`${jobs.payload}->>'signatureId' = ${signatureId}`)
    .orderBy(desc(jobs.createdAt))
    .limit(1);
  return job ?? null;
}

/**
 * Staff: seal a signed request again after its seal job gave up (e.g. the certificate file was
 * missing, or the document exceeded the PDF worker's limits and the limits were raised). The
 * failed job starts over with all its attempts; a job that still retries is left alone.
 */
export async function sealAgain(ctx: OrgContext, input: { id: string }): Promise<{ queued: true }> {
  await inTransaction(ctx, async (tx) => {
    const row = await findSignatureRequest(tx, input.id, true);
    if (row.status !== "sealing")
      throw new AppError("conflict", "only a signed request that is still being sealed can be sealed again", {
        reason: `status_${row.status}`,
      });
    const job = await latestSealJob(tx, row.id);
    if (job && job.status !== "failed" && job.status !== "done") return;
    if (job?.status === "failed") {
      await tx.scope.update(
        jobs,
        {
          status: "pending",
          attempts: 0,
          runAt: new Date(),
          lockedUntil: null,
          lastError: null,
          updatedAt: new Date(),
        },
        eq(jobs.id, job.id),
        eq(jobs.status, "failed"),
      );
    } else {
      await enqueueJob(tx.scope, {
        organizationId: row.organizationId,
        kind: SEAL_JOB,
        payload: { organizationId: row.organizationId, signatureId: row.id },
        maxAttempts: SEAL_MAX_ATTEMPTS,
      });
    }
    await tx.scope.update(
      signatureRequests,
      { sealAttempts: 0, sealFailedAt: null, updatedAt: new Date() },
      eq(signatureRequests.id, row.id),
    );
    await recordAudit(tx, {
      action: "signature.seal_requeued",
      metadata: { signatureId: row.id, previousError: row.sealError },
    });
    await afterCommit(tx, "wake the job runner", () => tx.services.jobs?.wake());
  });
  return { queued: true };
}

/**
 * The seal job used up its attempts: the request stays `sealing` (its signature is valid and kept)
 * and is marked, so staff find it as `failed` and may seal it again. Audited for its timeline.
 */
export async function markSealGaveUp(ctx: OrgContext, input: { id: string; error: string }): Promise<void> {
  const { id: signatureRequestId, error } = input;
  await inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        { sealFailedAt: new Date(), updatedAt: new Date() },
        eq(signatureRequests.id, signatureRequestId),
        eq(signatureRequests.status, "sealing"),
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return;
    await recordAudit(tx, {
      action: "signature.seal_failed",
      metadata: { signatureId: signatureRequestId, error: error.slice(0, 500) },
    });
  });
}

/**
 * The context sealing runs in: the service on its own behalf, in the caller's organization and
 * outside any transaction the caller holds open (sealing commits on its own).
 */
export const sealContext = (ctx: OrgContext, signatureRequestId: string): OrgContext =>
  systemContext(ctx.services, ctx.scope.organizationId, `seal-${signatureRequestId}`);

/**
 * Produces the signed result of a request in `sealing`: stamps the signature into the pinned
 * version, appends the audit page, seals with PAdES, stores the signed PDF and the metadata
 * JSON, and marks the request `completed`. Safe to call twice: only one call can complete it,
 * a late one removes its files again. Throws when anything fails (the job retries).
 */
export async function sealSignatureRequest(ctx: OrgContext, input: { id: string }): Promise<"completed" | "skipped"> {
  const signatureRequestId = input.id;
  const [row] = await ctx.scope.select(signatureRequests, eq(signatureRequests.id, signatureRequestId)).limit(1);
  if (!row || row.status !== "sealing") return "skipped";
  const started = process.hrtime.bigint();
  try {
    const { outcome, level } = await produceSealedResult(ctx, row);
    sealSeconds.observe({ level, outcome }, secondsSince(started));
    return outcome;
  } catch (error) {
    sealSeconds.observe({ level: "none", outcome: "failed" }, secondsSince(started));
    const message = error instanceof Error ? error.message : String(error);
    await ctx.scope.update(
      signatureRequests,
      {
        sealAttempts: sql`${signatureRequests.sealAttempts} + 1`,
        sealError: message.slice(0, 1000),
        updatedAt: new Date(),
      },
      eq(signatureRequests.id, row.id),
    );
    throw error;
  }
}

/**
 * Seals a signed request in named steps: load what it signed, stamp the signatures and the audit
 * page (PDF worker), seal and extend to LTV, write the metadata, store the files, commit. Nothing
 * is stored unless everything before succeeded; files of a commit that does not happen are removed.
 */
async function produceSealedResult(
  ctx: OrgContext,
  row: SignatureRequestRow,
): Promise<{ outcome: "completed" | "skipped"; level: PadesLevel }> {
  const { storage, config } = ctx.services;
  const signed = await loadSealInputs(ctx, row);
  const { stamped, stampedSha256, prepared } = await stampWithAuditPage(ctx, signed);
  const sealed = await sealAndFindDigest(config, prepared, signed.identity);
  const completedAt = new Date();
  const metadata = await sealedMetadata(ctx, signed, { stampedSha256, sealed, completedAt });
  const files = await putAll(storage, "signed", [Buffer.from(stamped), sealed.pdf, metadata]);
  const removeStored = () =>
    removeFiles(
      storage,
      files.map((f) => f.key),
    );
  const [stampedFile, signedFile, metadataFile] = files;
  const done = await commitSealed(ctx, signed, {
    completedAt,
    stampedSha256,
    sealed,
    stampedFile: stampedFile!,
    signedFile: signedFile!,
    metadataFile: metadataFile!,
  }).catch(async (error: unknown) => {
    // No row points at the new files: remove them, so a failed seal leaves nothing behind.
    await removeStored();
    throw error;
  });
  if (!done) {
    await removeStored();
    return { outcome: "skipped", level: sealed.level };
  }
  return { outcome: "completed", level: sealed.level };
}

/**
 * Marks the request completed with its files (only while it is still `sealing`), schedules the
 * time stamp's renewal and records `signature.completed`, in one transaction. False: another
 * process completed it first.
 */
function commitSealed(
  ctx: OrgContext,
  signed: SealInputs,
  made: {
    completedAt: Date;
    stampedSha256: string;
    sealed: SealedPdf;
    stampedFile: StoredFile;
    signedFile: StoredFile;
    metadataFile: StoredFile;
  },
): Promise<boolean> {
  const { row, version, identity, documentId, originalSha256 } = signed;
  const { completedAt, stampedSha256, sealed } = made;
  return inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        {
          status: "completed",
          completedAt,
          originalSha256,
          stampedKey: made.stampedFile.key,
          stampedSha256,
          signedPdfKey: made.signedFile.key,
          signedPdfSha256: sealed.sha256,
          sealedContentSha256: sealed.sealedContentSha256,
          metadataKey: made.metadataFile.key,
          metadataSha256: made.metadataFile.sha256,
          sealError: null,
          sealFailedAt: null,
          sealLevel: sealed.level,
          timestampedAt: sealed.signatureTimestamp?.genTime ?? null,
          timestampExpiresAt: sealed.timestampExpiresAt,
          updatedAt: completedAt,
        },
        eq(signatureRequests.id, row.id),
        eq(signatureRequests.status, "sealing"),
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return false;
    if (sealed.timestampExpiresAt) await scheduleRetimestamp(tx, row.id, sealed.timestampExpiresAt);
    await recordSignatureEvent(
      tx,
      "signature.completed",
      {
        signatureId: row.id,
        documentId,
        version: version.version,
        sha256: { original: originalSha256, stamped: stampedSha256, signedPdf: sealed.sha256 },
        certificateFingerprint: identity.fingerprint,
      },
      {
        patient_id: row.patientId,
        timestamp: completedAt.toISOString(),
        signed_pdf_url: signedPdfUrl(tx, row.id),
        metadata_json_url: metadataJsonUrl(tx, row.id),
      },
    );
    return true;
  });
}
