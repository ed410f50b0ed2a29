import { and, eq, signatureRequests } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { sha256Hex } from "../crypto";
import { enqueueJob } from "../jobs/queue";
import { putAll, removeFiles } from "../files/storage";
import { retimestamp, timestampFacts } from "../pdf-seal/ltv";

/** Job kind: a new document time stamp for one sealed request (B-LTA renewal). */
export const RETIMESTAMP_JOB = "signature.retimestamp";
/** Attempts of one renewal (about 2 days with the seal job's backoff); the window leaves time for more. */
export const RETIMESTAMP_MAX_ATTEMPTS = 100;

/**
 * Queues the renewal of a B-LTA request's time stamp: RETIMESTAMP_WINDOW_DAYS before the newest
 * time stamp's certificate expires. One job per request at a time, created in the transaction
 * that stores the file it will renew; the job queue's lease makes each run exactly once across
 * instances, and the runner takes due jobs in batches.
 */
export async function scheduleRetimestamp(
  ctx: OrgContext,
  signatureRequestId: string,
  timestampExpiresAt: Date,
): Promise<void> {
  await enqueueJob(ctx.scope, {
    organizationId: ctx.scope.organizationId,
    kind: RETIMESTAMP_JOB,
    payload: { organizationId: ctx.scope.organizationId, signatureId: signatureRequestId },
    runAt: new Date(Math.max(Date.now(), timestampExpiresAt.getTime() - ctx.services.config.retimestampWindowMs)),
    maxAttempts: RETIMESTAMP_MAX_ATTEMPTS,
  });
}

/**
 * Renews the long-term seal of one completed request: validation data for its newest time stamp
 * and a new document time stamp, appended as an incremental update (the earlier bytes, and with
 * them every earlier signature, stay as they are). The stored signed PDF is replaced by the new
 * revision (a new storage key; the old file is deleted after commit), the metadata JSON names
 * the new time stamp and the new SHA-256. Skips what is not (or no longer) due.
 */
export async function retimestampSignatureRequest(
  ctx: OrgContext,
  input: { id: string; now?: Date },
): Promise<"renewed" | "skipped"> {
  const { id: signatureRequestId, now = new Date() } = input;
  const { config, storage } = ctx.services;
  const [row] = await ctx.scope.select(signatureRequests, eq(signatureRequests.id, signatureRequestId)).limit(1);
  if (
    !row ||
    row.status !== "completed" ||
    row.sealLevel !== "B-LTA" ||
    !row.timestampExpiresAt ||
    !row.signedPdfKey ||
    !row.metadataKey
  )
    return "skipped";
  if (row.timestampExpiresAt.getTime() - config.retimestampWindowMs > now.getTime()) {
    // Not due (e.g. renewed meanwhile): the job that renewed it queued the next one.
    return "skipped";
  }
  if (!config.tsa) throw new Error("TSA_URL is not configured: sealed documents cannot be re-time-stamped");
  const current = await storage.get(row.signedPdfKey);
  if (!current || sha256Hex(current) !== row.signedPdfSha256)
    throw new Error("the stored signed PDF is missing or does not match its SHA-256");
  const metadataBytes = await storage.get(row.metadataKey);
  if (!metadataBytes) throw new Error("the stored metadata JSON is missing");

  const { pdf, timestamp } = await retimestamp(config, current);
  const pdfSha256 = sha256Hex(pdf);
  const metadata = JSON.parse(metadataBytes.toString("utf8")) as {
    sha256: Record<string, string>;
    seal: { document_timestamps?: unknown[] };
  };
  metadata.sha256.signed_pdf = pdfSha256;
  metadata.seal.document_timestamps = [
    ...(metadata.seal.document_timestamps ?? []),
    timestampFacts(timestamp, config.tsa.url),
  ];
  const newMetadata = Buffer.from(JSON.stringify(metadata, null, 2) + "\n", "utf8");
  const [pdfFile, metadataFile] = await putAll(storage, "signed", [pdf, newMetadata]);
  const expiresAt = new Date(timestamp.signer.validTo);
  const done = await inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        {
          signedPdfKey: pdfFile!.key,
          signedPdfSha256: pdfSha256,
          metadataKey: metadataFile!.key,
          metadataSha256: metadataFile!.sha256,
          timestampExpiresAt: expiresAt,
          updatedAt: new Date(),
        },
        eq(signatureRequests.id, row.id),
        and(eq(signatureRequests.signedPdfKey, row.signedPdfKey!), eq(signatureRequests.status, "completed"))!,
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return false;
    await scheduleRetimestamp(tx, row.id, expiresAt);
    await recordAudit(tx, {
      action: "signature.retimestamped",
      metadata: {
        signatureId: row.id,
        genTime: timestamp.genTime.toISOString(),
        previousSha256: row.signedPdfSha256,
        sha256: pdfSha256,
      },
    });
    return true;
  }).catch(async (error: unknown) => {
    await removeFiles(storage, [pdfFile!.key, metadataFile!.key]);
    throw error;
  });
  const obsolete = done ? [row.signedPdfKey, row.metadataKey] : [pdfFile!.key, metadataFile!.key];
  await removeFiles(storage, obsolete);
  return done ? "renewed" : "skipped";
}
