import { auditLog, desc, eq, jobs, signatureRequests, sql, type SignatureFieldRect } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { AppError } from "../errors";
import { putAll, removeFiles, type StoredFile } from "../files/storage";
import { enqueueJob } from "../jobs/queue";
import { afterCommit, inTransaction, systemContext, type OrgContext, type Services } from "../context";
import { sha256Hex } from "../crypto";
import { findDocument, findVersion } from "../documents/documents";
import { runPdfTask } from "../pdf-worker/run";
import { sealWithTime, timestampFacts } from "../pdf-seal/ltv";
import { scheduleRetimestamp } from "./retimestamp";
import { findSignatureBytes, signedContentSha256 } from "../pdf-seal/byte-range";
import { loadOrganization } from "../organizations/organizations";
import { sealingIdentity } from "./org-seal";
import { printable } from "../pdf-seal/seal-pdf";
import { recordSignatureEvent } from "./events";
import {
  findSignatureRequest,
  metadataJsonUrl,
  pinnedDocumentIdOf,
  signedPdfUrl,
  type SignatureRequestRow,
} from "./request-read";
import type { SigningIdentity } from "../pdf-seal/pades";
import type { PatientLanguage } from "@clinsign/contracts";
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
export const sealContext = (services: Services, organizationId: string, signatureRequestId: string): OrgContext =>
  systemContext(services, organizationId, `seal-${signatureRequestId}`);

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
async function produceSealedResult(ctx: OrgContext, row: SignatureRequestRow): Promise<"completed" | "skipped"> {
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
    return "skipped";
  }
  return "completed";
}

/** What a request's seal is made of, read and checked before anything is drawn. */
interface SealInputs {
  row: SignatureRequestRow;
  /** The pinned document (issue 19: the one in the patient's language when the request had one). */
  documentId: string;
  version: Awaited<ReturnType<typeof findVersion>>;
  documentName: string | null;
  original: Buffer;
  originalSha256: string;
  signers: SignerRow[];
  /** Several signers (issue 20): each signer's signature into that signer's fields. */
  several: Awaited<ReturnType<typeof severalSignersFacts>> | null;
  /** One patient's drawn signature. */
  png: Buffer | null;
  identity: SigningIdentity;
  clinicLanguage: PatientLanguage;
  /** The audit page speaks the patient's language (the signing page's), the clinic's beside it. */
  language: PatientLanguage;
}

async function loadSealInputs(ctx: OrgContext, row: SignatureRequestRow): Promise<SealInputs> {
  const { storage } = ctx.services;
  const documentId = pinnedDocumentIdOf(row);
  const version = await findVersion(ctx, documentId, row.pinnedVersion!);
  const doc = await findDocument(ctx, documentId).catch(() => null);
  const original = await storage.get(version.storageKey);
  if (!original) throw new Error("the document's stored PDF is missing");
  const originalSha256 = sha256Hex(original);
  if (originalSha256 !== version.sha256) throw new Error("the document's stored PDF does not match its SHA-256");
  const signers = await signersOf(ctx, row.id);
  const several = signers.length > 0 ? await severalSignersFacts(ctx, signers, version.fields) : null;
  const png = !several && row.signatureMethod === "drawn" ? await storage.get(row.signatureImageKey!) : null;
  if (!several && row.signatureMethod === "drawn" && !png) throw new Error("the stored signature image is missing");
  const patientSigner =
    signers.find((s) => s.role === "patient" && s.signingLanguage) ?? signers.find((s) => s.signingLanguage);
  return {
    row,
    documentId,
    version,
    documentName: doc?.name ?? null,
    original,
    originalSha256,
    signers,
    several,
    png,
    identity: await sealingIdentity(ctx),
    clinicLanguage: (await loadOrganization(ctx)).locale,
    language: (several ? patientSigner?.signingLanguage : row.signingLanguage) ?? "en",
  };
}

/**
 * pdf-lib's part (stamp, audit page, signature placeholder) runs in the PDF worker under its
 * limits; the signature itself is made here, so the private key stays in this thread.
 */
function stampWithAuditPage(ctx: OrgContext, signed: SealInputs) {
  const { row, version, several, signers, identity } = signed;
  const { config } = ctx.services;
  return runPdfTask(config.pdfWorker, "prepareSeal", {
    original: signed.original,
    fields: version.fields,
    png: signed.png,
    typedName: row.typedName,
    ...(several && { stamps: several.stamps }),
    facts: {
      title: version.title,
      signatureId: row.id,
      documentId: signed.documentId,
      version: version.version,
      documentLanguage: version.language,
      signature: several
        ? { kind: "several" as const, count: signers.length, order: row.signingOrder }
        : row.signatureMethod === "typed"
          ? { kind: "typed" as const, name: row.typedName ?? "" }
          : { kind: "drawn" as const },
      language: signed.language,
      clinicLanguage: signed.clinicLanguage,
      patientId: row.patientId,
      institutionId: row.institutionExternalId,
      orderBy: row.orderBy,
      createdAt: row.createdAt,
      openedAt: row.openedAt,
      signedAt: row.signedAt!,
      ip: row.signerIp,
      userAgent: row.signerUserAgent,
      originalSha256: signed.originalSha256,
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
}

/**
 * With a TSA the seal is time-stamped (B-T) and, with a CA-issued certificate, extended to
 * B-LTA. A TSA or responder that fails throws here and nothing is stored: the request stays
 * `sealing` and the job retries. The seal's message digest is how `/verify` finds this request
 * from a dropped copy; the seal covers its own revision, validation data and document time
 * stamps come after it.
 */
async function sealAndFindDigest(config: Services["config"], prepared: Uint8Array, identity: SigningIdentity) {
  const seal = await sealWithTime(config, prepared, identity);
  const sealSignature = findSignatureBytes(seal.sealRevision).find(
    (s) => s.wellFormed && s.range[2] + s.range[3] === seal.sealRevision.length,
  );
  return {
    ...seal,
    sha256: sha256Hex(seal.pdf),
    sealedContentSha256: sealSignature
      ? signedContentSha256(seal.sealRevision, sealSignature.range).toString("hex")
      : null,
  };
}
type SealedPdf = Awaited<ReturnType<typeof sealAndFindDigest>>;

/** metadata.json: what was signed, by whom, when, with which certificate and seal, and the request's events. */
async function sealedMetadata(
  ctx: OrgContext,
  signed: SealInputs,
  made: { stampedSha256: string; sealed: SealedPdf; completedAt: Date },
): Promise<Buffer> {
  const { row, version, several, identity, documentId } = signed;
  const { stampedSha256, sealed, completedAt } = made;
  const { config } = ctx.services;
  const metadata = {
    signature_id: row.id,
    status: "completed",
    document: {
      id: documentId,
      name: signed.documentName,
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
    sha256: { original: signed.originalSha256, stamped: stampedSha256, signed_pdf: sealed.sha256 },
    signature_fields: version.fields,
    certificate: {
      sha256_fingerprint: identity.fingerprint,
      subject: identity.subject,
      development: identity.development,
    },
    seal: {
      format: "PAdES",
      sub_filter: "ETSI.CAdES.detached",
      level: sealed.level,
      signature_timestamp: sealed.signatureTimestamp
        ? timestampFacts(sealed.signatureTimestamp, config.tsa!.url)
        : null,
      document_timestamps: sealed.documentTimestamp ? [timestampFacts(sealed.documentTimestamp, config.tsa!.url)] : [],
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
  return Buffer.from(JSON.stringify(metadata, null, 2) + "\n", "utf8");
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
