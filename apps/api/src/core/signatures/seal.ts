import { auditLog, desc, eq, jobs, signatureRequests, sql, type SignatureFieldRect } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { AppError } from "../errors";
import { putAll, removeFiles } from "../files/storage";
import { enqueueJob } from "../jobs/queue";
import { afterCommit, inTransaction, systemContext, type OrgContext, type Services } from "../context";
import { sha256Hex } from "../crypto";
import { findDocument, findVersion } from "../documents/documents";
import { runPdfTask } from "../pdf-worker/run";
import { sealWithTime, timestampFacts } from "./ltv";
import { scheduleRetimestamp } from "./retimestamp";
import { findSignatureBytes, signedContentSha256 } from "./byte-range";
import { loadOrganization } from "../organizations/organizations";
import { sealingIdentity } from "./org-seal";
import { printable } from "./seal-pdf";
import { recordSignatureEvent } from "./events";
import {
  findSignatureRequest,
  metadataJsonUrl,
  pinnedDocumentIdOf,
  signedPdfUrl,
  type SignatureRequestRow,
} from "./requests";
import { fieldsOfRole, signerLabels, signersOf, type SignerRow } from "./signers";

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
  const { id: requestId, error } = input;
  await inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        { sealFailedAt: new Date(), updatedAt: new Date() },
        eq(signatureRequests.id, requestId),
        eq(signatureRequests.status, "sealing"),
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return;
    await recordAudit(tx, {
      action: "signature.seal_failed",
      metadata: { signatureId: requestId, error: error.slice(0, 500) },
    });
  });
}

/** The request's own steps (not the webhook entries that name it) for the metadata JSON. */
async function eventsOf(ctx: OrgContext, signatureId: string) {
  const rows = await ctx.scope
    .select(
      auditLog,
      sql`(${auditLog.metadata}->>'signatureId') = ${signatureId}`,
      sql`${auditLog.action} like 'signature.%'`,
    )
    .orderBy(auditLog.seq);
  return rows.map((row) => ({
    action: row.action,
    at: row.createdAt.toISOString(),
    actor_type: row.actorType,
    ip: row.ip,
    user_agent: row.userAgent,
  }));
}

/** Several signers: what sealing stamps, writes on the audit page and into the metadata JSON, per signer. */
async function severalSignersFacts(ctx: OrgContext, signers: SignerRow[], fields: SignatureFieldRect[]) {
  const labels = await signerLabels(ctx, signers);
  const stamps = [];
  for (const signer of signers) {
    if (signer.status !== "signed") continue;
    const png = signer.signatureMethod === "drawn" ? await ctx.services.storage.get(signer.signatureImageKey!) : null;
    if (signer.signatureMethod === "drawn" && !png)
      throw new Error(`the stored signature image of the ${signer.role} is missing`);
    stamps.push({ fields: fieldsOfRole(fields, signer.role), png, typedName: signer.typedName });
  }
  const nameOf = (s: SignerRow) => labels.get(s.id) ?? (s.signatureMethod === "typed" ? s.typedName : null);
  return {
    stamps,
    auditPage: signers.map((s) => ({
      role: s.role,
      name: nameOf(s),
      status: s.status,
      method: s.signatureMethod,
      signedAt: s.signedAt,
      ip: s.ip,
      userAgent: s.userAgent,
    })),
    metadata: signers.map((s) => ({
      role: s.role,
      kind: s.kind,
      position: s.position,
      required: s.required,
      name: nameOf(s),
      staff_user_id: s.staffUserId,
      status: s.status,
      method: s.signatureMethod,
      typed_name: s.typedName,
      signed_at: s.signedAt?.toISOString() ?? null,
      ip: s.ip,
      user_agent: s.userAgent,
    })),
  };
}

/** The context sealing runs in: the service on its own behalf, in the request's organization. */
export const sealContext = (services: Services, organizationId: string, requestId: string): OrgContext =>
  systemContext(services, organizationId, `seal-${requestId}`);

/**
 * Produces the signed result of a request in `sealing`: stamps the signature into the pinned
 * version, appends the audit page, seals with PAdES, stores the signed PDF and the metadata
 * JSON, and marks the request `completed`. Safe to call twice: only one call can complete it,
 * a late one removes its files again. Throws when anything fails (the job retries).
 */
export async function sealSignatureRequest(ctx: OrgContext, input: { id: string }): Promise<"completed" | "skipped"> {
  const requestId = input.id;
  const [row] = await ctx.scope.select(signatureRequests, eq(signatureRequests.id, requestId)).limit(1);
  if (!row || row.status !== "sealing") return "skipped";
  try {
    return await produceSealedResult(ctx, row);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await ctx.scope.update(
      signatureRequests,
      {
        sealAttempts: sql`${signatureRequests.sealAttempts} + 1`,
        sealError: message.slice(0, 1000),
        updatedAt: new Date(),
      } as never,
      eq(signatureRequests.id, row.id),
    );
    throw error;
  }
}

async function produceSealedResult(ctx: OrgContext, row: SignatureRequestRow): Promise<"completed" | "skipped"> {
  const { storage, config } = ctx.services;
  // The pinned document (issue 19: the one in the patient's language when the request had one).
  const documentId = pinnedDocumentIdOf(row);
  const version = await findVersion(ctx, documentId, row.pinnedVersion!);
  const doc = await findDocument(ctx, documentId).catch(() => null);
  const original = await storage.get(version.storageKey);
  if (!original) throw new Error("the document's stored PDF is missing");
  const originalSha256 = sha256Hex(original);
  if (originalSha256 !== version.sha256) throw new Error("the document's stored PDF does not match its SHA-256");
  // Several signers (issue 20): each signer's signature into that signer's fields.
  const signers = await signersOf(ctx, row.id);
  const several = signers.length > 0 ? await severalSignersFacts(ctx, signers, version.fields) : null;
  const png = !several && row.signatureMethod === "drawn" ? await storage.get(row.signatureImageKey!) : null;
  if (!several && row.signatureMethod === "drawn" && !png) throw new Error("the stored signature image is missing");

  const identity = await sealingIdentity(ctx);
  const organization = await loadOrganization(ctx);
  // The audit page speaks the patient's language (the signing page's), the clinic's beside it.
  const patientSigner =
    signers.find((s) => s.role === "patient" && s.signingLanguage) ?? signers.find((s) => s.signingLanguage);
  const language = (several ? patientSigner?.signingLanguage : row.signingLanguage) ?? "en";
  // pdf-lib's part (stamp, audit page, placeholder) runs in the PDF worker under its limits; the
  // signature itself is made here, so the private key stays in this thread.
  const { stamped, stampedSha256, prepared } = await runPdfTask(config.pdfWorker, "prepareSeal", {
    original,
    fields: version.fields,
    png,
    typedName: row.typedName,
    ...(several && { stamps: several.stamps }),
    facts: {
      title: version.title,
      signatureId: row.id,
      documentId,
      version: version.version,
      documentLanguage: version.language,
      signature: several
        ? { kind: "several" as const, count: signers.length, order: row.signingOrder }
        : row.signatureMethod === "typed"
          ? { kind: "typed" as const, name: row.typedName ?? "" }
          : { kind: "drawn" as const },
      language,
      clinicLanguage: organization.locale,
      patientId: row.patientId,
      institutionId: row.institutionExternalId,
      orderBy: row.orderBy,
      createdAt: row.createdAt,
      openedAt: row.openedAt,
      signedAt: row.signedAt!,
      ip: row.signerIp,
      userAgent: row.signerUserAgent,
      originalSha256,
      certificate: `${identity.subject}, SHA-256 ${identity.fingerprint}`,
      development: identity.development,
      tsaHost: config.tsa ? new URL(config.tsa.url).host : null,
      ...(several && { signers: several.auditPage }),
    },
    placeholder: {
      reason: several
        ? `Signed by ${printable(
            signers
              .filter((s) => s.status === "signed")
              .map((s) => s.role)
              .join(", "),
          )} for patient ${printable(row.patientId)} (signature ${row.id})`
        : `Signed by patient ${printable(row.patientId)} (signature ${row.id})`,
      location: printable(row.institutionExternalId),
      contactInfo: "ClinSign",
      signingTime: new Date(),
      name: identity.subject,
    },
  });
  // With a TSA the seal is time-stamped (B-T) and, with a CA-issued certificate, extended to
  // B-LTA. A TSA or responder that fails throws here and nothing is stored: the request stays
  // `sealing` and the job retries.
  const seal = await sealWithTime(config, prepared, identity);
  const { pdf: signed, level, signatureTimestamp } = seal;
  const signedSha256 = sha256Hex(signed);
  // The seal's message digest: how `/verify` finds this request from a dropped copy. The seal
  // covers its own revision; validation data and document time stamps come after it.
  const sealSignature = findSignatureBytes(seal.sealRevision).find(
    (s) => s.wellFormed && s.range[2] + s.range[3] === seal.sealRevision.length,
  );
  const sealedContentSha256 = sealSignature
    ? signedContentSha256(seal.sealRevision, sealSignature.range).toString("hex")
    : null;
  const completedAt = new Date();
  const metadata = {
    signature_id: row.id,
    status: "completed",
    document: {
      id: documentId,
      name: doc?.name ?? null,
      title: version.title,
      version: version.version,
      page_count: version.pageCount,
      // Additive (issue 19): the version's language and, when the patient got a document in
      // their language, the main document A1 named.
      ...(version.language && { language: version.language }),
      ...(documentId !== row.documentId && { requested_document_id: row.documentId }),
    },
    patient_id: row.patientId,
    institution_id: row.institutionExternalId,
    order_by: row.orderBy,
    timestamps: {
      created: row.createdAt.toISOString(),
      opened: row.openedAt?.toISOString() ?? null,
      signed: row.signedAt!.toISOString(),
      completed: completedAt.toISOString(),
      expires: row.expiresAt.toISOString(),
    },
    signer: {
      method: row.signatureMethod,
      typed_name: row.typedName,
      ip: row.signerIp,
      user_agent: row.signerUserAgent,
    },
    ...(several && { signing_order: row.signingOrder, signers: several.metadata }),
    sha256: { original: originalSha256, stamped: stampedSha256, signed_pdf: signedSha256 },
    signature_fields: version.fields,
    certificate: {
      sha256_fingerprint: identity.fingerprint,
      subject: identity.subject,
      development: identity.development,
    },
    seal: {
      format: "PAdES",
      sub_filter: "ETSI.CAdES.detached",
      level,
      signature_timestamp: signatureTimestamp ? timestampFacts(signatureTimestamp, config.tsa!.url) : null,
      document_timestamps: seal.documentTimestamp ? [timestampFacts(seal.documentTimestamp, config.tsa!.url)] : [],
    },
    events: [
      ...(await eventsOf(ctx, row.id)),
      {
        action: "signature.completed",
        at: completedAt.toISOString(),
        actor_type: "system",
        ip: null,
        user_agent: null,
      },
    ],
  };
  const metadataBytes = Buffer.from(JSON.stringify(metadata, null, 2) + "\n", "utf8");

  const files = await putAll(storage, "signed", [Buffer.from(stamped), signed, metadataBytes]);
  const [stampedFile, signedFile, metadataFile] = files;
  const done = await inTransaction(ctx, async (tx) => {
    const [updated] = await tx.scope
      .update(
        signatureRequests,
        {
          status: "completed",
          completedAt,
          originalSha256,
          stampedKey: stampedFile!.key,
          stampedSha256,
          signedPdfKey: signedFile!.key,
          signedPdfSha256: signedSha256,
          sealedContentSha256,
          metadataKey: metadataFile!.key,
          metadataSha256: metadataFile!.sha256,
          sealError: null,
          sealFailedAt: null,
          sealLevel: level,
          timestampedAt: signatureTimestamp?.genTime ?? null,
          timestampExpiresAt: seal.timestampExpiresAt,
          updatedAt: completedAt,
        },
        eq(signatureRequests.id, row.id),
        eq(signatureRequests.status, "sealing"),
      )
      .returning({ id: signatureRequests.id });
    if (!updated) return false;
    if (seal.timestampExpiresAt) await scheduleRetimestamp(tx, row.id, seal.timestampExpiresAt);
    await recordSignatureEvent(
      tx,
      "signature.completed",
      {
        signatureId: row.id,
        documentId,
        version: version.version,
        sha256: { original: originalSha256, stamped: stampedSha256, signedPdf: signedSha256 },
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
  }).catch(async (error: unknown) => {
    // No row points at the new files: remove them, so a failed seal leaves nothing behind.
    await removeFiles(
      storage,
      files.map((f) => f.key),
    );
    throw error;
  });
  if (!done) {
    await removeFiles(
      storage,
      files.map((f) => f.key),
    );
    return "skipped";
  }
  return "completed";
}
