import {
  erasureReason,
  erasureRecordKinds,
  type ErasureRecordKind,
  type ErasureRetention,
  type PatientErasureReceipt,
  type PatientSelector,
} from "@clinsign/contracts";
import {
  and,
  auditLog,
  drafts,
  eq,
  formRequests,
  formSessions,
  formUploads,
  inArray,
  isNull,
  jobs,
  messages,
  patientErasures,
  signatureRequests,
  sql,
  submissions,
  webhookDeliveries,
  fhirDeliveries,
  type PgColumn,
  type TenantTable,
} from "@clinsign/db";
import { newPersonalSalt, personalCommitment, recordAudit } from "../audit/audit";
import type { OrgContext, Services } from "../context";
import { sha256Hex } from "../crypto";
import { AppError, fromZodError } from "../errors";
import { holdChainLock } from "../jobs/audit-chain";
import { enqueueJob } from "../jobs/queue";
import { consumeRateLimit, resetRateLimit } from "../rate-limit";
import { eraseReleasedLegalHolds, isPatientUnderLegalHold } from "../retention/legal-holds";
import { retentionPolicyOf } from "../retention/policies";
import { countsOf, findPatientRecords, isEmpty, type PatientRecords } from "./patient-records";
import { inList } from "./record-filters";
import { confirmsPatient, normalisedSelector } from "./patient-selector";

/** Job kind that deletes the stored objects an erasure could not delete at once. */
export const ERASURE_OBJECTS_JOB = "patient.erasure_objects";
/** Rows changed per transaction: a patient with thousands of submissions never holds one long transaction. */
export const ERASURE_BATCH = 500;
/** Erasures (dry runs included) per organization and minute: each one reads every table of the patient. */
const ERASURES_PER_MINUTE = 30;

export interface ErasePatientInput {
  selector: PatientSelector;
  dryRun?: boolean;
  /** To erase: the patient's identifier typed again (contracts `confirmationFieldOf`). */
  confirmation?: string;
  /** To erase: why (3–500 characters, naming no identifier of the patient); kept on the receipt. */
  reason?: string;
}

/** The rows erasure deletes, kind by kind; children whose foreign keys cascade go with their parents. */
const deletedTables: Partial<Record<ErasureRecordKind, TenantTable & { id: PgColumn }>> = {
  jobs,
  webhookDeliveries, // webhook_attempts cascade
  // The log of what was pushed to the hospital's FHIR server (a pending one holds a copy of the record).
  fhirDeliveries,
  messages,
  signatureRequests, // signing_credentials, signature_notices cascade
  formRequests, // otp_challenges cascade
  uploads: formUploads,
  submissions,
  drafts,
  embedSessions: formSessions,
};

const digestsOf = (records: PatientRecords) =>
  Object.fromEntries(
    erasureRecordKinds.filter((k) => records.ids[k].length > 0).map((k) => [k, sha256Hex(records.ids[k].join("\n"))]),
  );

function batches<T>(items: readonly T[], size = ERASURE_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Erases everything the caller's organization holds about one patient (GDPR Art. 17), or with
 * `dryRun` reports what it would erase and changes nothing. Returns a receipt: counts per kind,
 * digests of the record ids, what happened to the stored objects, the signed records among them and
 * the organization's retention periods (`retention`), staff's reason; never a patient value.
 *
 * - To erase, the patient's identifier typed again must match the selector (after the same
 *   normalisation) and a reason must be given: 400 on `confirmation` / `reason` otherwise, before
 *   anything is read or changed. The reason is stored on the receipt only (not logged, not audited).
 * - A legal hold that names the patient (or a record of theirs) refuses it: 409 `conflict`, reason
 *   `legal_hold` (a dry run reports `legalHold: true` instead).
 * - Rows are deleted kind by kind, `ERASURE_BATCH` per transaction. Audit entries are not deleted
 *   (the chain needs them): their personal part (metadata, ip, user agent) is removed and the
 *   commitment their hash covers is kept, so `audit verify` still passes (docs/architecture.md,
 *   "Erasure and the audit chain").
 * - Stored objects: the receipt row and a retry job are written first, listing every object key, so
 *   a failure anywhere later loses none; after the rows are gone each object is deleted through
 *   `FileStorage.delete`, and what fails stays pending for the job (`objects_pending`).
 * - Idempotent: a second call finds nothing, says so (`nothing_found`) and writes nothing.
 */
export async function erasePatient(ctx: OrgContext, input: ErasePatientInput): Promise<PatientErasureReceipt> {
  const dryRun = input.dryRun ?? false;
  const selector = await normalisedSelector(ctx, input.selector);
  const reason = dryRun ? null : await checkConfirmation(ctx, selector, input);
  await consumeRateLimit(ctx.scope, {
    key: `patient-erasure:${ctx.scope.organizationId}`,
    limit: ERASURES_PER_MINUTE,
    windowSeconds: 60,
  });
  const legalHold = await isPatientUnderLegalHold(ctx, selector);
  const records = await findPatientRecords(ctx, selector);
  const base = {
    dryRun,
    actor: { type: ctx.actor.type, id: ctx.actor.id },
    legalHold,
    counts: countsOf(records),
    digests: digestsOf(records),
    retention: await retentionOf(ctx, records),
  };
  const { objects: _objects, ...counts } = base.counts;
  const receipt = (
    fields: Pick<PatientErasureReceipt, "erasureId" | "status" | "at" | "objects" | "reason">,
  ): PatientErasureReceipt => ({ ...base, counts, ...fields });
  const found = records.objects.length;

  if (dryRun)
    return receipt({
      erasureId: null,
      status: isEmpty(records) ? "nothing_found" : "preview",
      at: new Date().toISOString(),
      objects: { found, deleted: 0, pending: 0 },
      reason: null,
    });
  if (legalHold) throw new AppError("conflict", "a legal hold keeps this patient's records", { reason: "legal_hold" });
  if (isEmpty(records)) {
    // Records erased before holds were blanked (issue 32) leave only the released holds naming them.
    await eraseReleasedLegalHolds(ctx, records.terms);
    return receipt({
      erasureId: null,
      status: "nothing_found",
      at: new Date().toISOString(),
      objects: { found: 0, deleted: 0, pending: 0 },
      reason: null,
    });
  }

  const keys = [...new Set(records.objects.map((o) => o.key))];
  const erasure = await openErasure(ctx, { counts: base.counts, digests: base.digests, keys, reason });
  const releasedHoldsBlanked = await eraseRecords(ctx, records, erasure.id);
  const pending = await deleteObjects(ctx.services, keys);
  const at = new Date();
  await completeErasure(ctx, erasure.id, { at, pending, counts: base.counts, releasedHoldsBlanked });
  return receipt({
    erasureId: erasure.id,
    status: pending.length === 0 ? "erased" : "objects_pending",
    at: at.toISOString(),
    objects: { found, deleted: keys.length - pending.length, pending: pending.length },
    reason: erasure.reason,
  });
}

/**
 * First the receipt row (listing every object key as pending) and the job that finishes the
 * objects: from here on nothing can be forgotten.
 */
function openErasure(
  ctx: OrgContext,
  receipt: { counts: Record<string, number>; digests: Record<string, string>; keys: string[]; reason: string | null },
) {
  return ctx.scope.transaction(async (scope) => {
    const [row] = await scope
      .insert(patientErasures, {
        actorType: ctx.actor.type,
        actorId: ctx.actor.id,
        counts: receipt.counts,
        digests: receipt.digests,
        pendingKeys: receipt.keys,
        reason: receipt.reason,
      })
      .returning();
    if (receipt.keys.length > 0)
      await enqueueJob(scope, {
        kind: ERASURE_OBJECTS_JOB,
        payload: { organizationId: scope.organizationId, erasureId: row!.id },
        maxAttempts: 20,
        runAt: new Date(Date.now() + 60_000),
      });
    return row!;
  });
}

/**
 * The patient's rows, kind by kind in batches; the personal part of their audit entries; the
 * released legal holds naming them; the OTP counter of their phone. Returns how many released
 * holds were blanked.
 */
async function eraseRecords(ctx: OrgContext, records: PatientRecords, erasureId: string): Promise<number> {
  for (const kind of erasureRecordKinds) {
    const table = deletedTables[kind];
    if (!table) continue;
    for (const ids of batches(records.ids[kind])) {
      await ctx.scope.transaction(async (scope) => {
        await scope.delete(table, inList(table.id, ids));
      });
    }
  }
  for (const ids of batches(records.ids.auditEntries)) await eraseAuditEntries(ctx, ids, erasureId);
  // Released legal holds that named the patient keep their id and dates, not the patient.
  const releasedHoldsBlanked = await eraseReleasedLegalHolds(ctx, records.terms);
  // The OTP counter of the phone (a rate-limit row keyed by the number, shared across organizations).
  for (const phone of records.terms.filter((t) => t.startsWith("+")))
    await resetRateLimit(ctx.scope, `otp-sms:${phone}`);
  return releasedHoldsBlanked;
}

/** The receipt's pending keys and completion, and the audit entry `patient.erased`, in one transaction; then the log line. */
async function completeErasure(
  ctx: OrgContext,
  erasureId: string,
  outcome: { at: Date; pending: string[]; counts: Record<string, number>; releasedHoldsBlanked: number },
): Promise<void> {
  const { at, pending } = outcome;
  await ctx.scope.transaction(async (scope) => {
    await scope.update(
      patientErasures,
      { pendingKeys: pending, completedAt: pending.length === 0 ? at : null },
      eq(patientErasures.id, erasureId),
    );
    await recordAudit(
      { ...ctx, scope },
      {
        action: "patient.erased",
        metadata: {
          erasureId,
          counts: outcome.counts,
          objectsPending: pending.length,
          releasedHoldsBlanked: outcome.releasedHoldsBlanked,
        },
      },
    );
  });
  ctx.services.log.info(
    { erasureId, requestId: ctx.request.requestId, objectsPending: pending.length },
    "patient erased",
  );
}

/** The shortest identifier a reason is checked for: shorter ones ("12") are common words and numbers. */
const MIN_NAMED_IDENTIFIER = 4;

/**
 * An erasure's confirmation and reason (issue 31): the identifier typed again must match the
 * normalised selector (`confirmsPatient`), the reason must be 3–500 characters and must not name
 * one of the patient's identifiers (the receipt outlives the data). Returns the trimmed reason;
 * 400 on `confirmation` or `reason` otherwise. Neither value is ever logged.
 */
async function checkConfirmation(ctx: OrgContext, selector: PatientSelector, input: ErasePatientInput) {
  const required = (field: string) =>
    new AppError("invalid_request", `${field}: is required`, { field }, [{ key: field, message: "is required" }]);
  if (input.reason === undefined) throw required("reason");
  const parsed = erasureReason.safeParse(input.reason);
  if (!parsed.success) throw fromZodError(parsed.error, "reason");
  const reason = parsed.data;
  if (!input.confirmation?.trim()) throw required("confirmation");
  if (!(await confirmsPatient(ctx, selector, input.confirmation)))
    throw new AppError(
      "invalid_request",
      "confirmation: does not match the patient identifier (type it again exactly: the patient ID, else the case number, else the phone)",
      { field: "confirmation" },
      [{ key: "confirmation", message: "does not match the patient identifier" }],
    );
  const lower = reason.toLowerCase();
  const named = [selector.patientId, selector.rnummer, selector.phone, input.selector.phone?.trim()].some(
    (value) => value !== undefined && value.length >= MIN_NAMED_IDENTIFIER && lower.includes(value.toLowerCase()),
  );
  if (named)
    throw new AppError(
      "invalid_request",
      "reason: must not name the patient's identifiers (the receipt is kept after the data is gone)",
      { field: "reason" },
      [{ key: "reason", message: "must not name the patient's identifiers" }],
    );
  return reason;
}

/**
 * Signed records among those found, and the organization's periods of those kinds: what may fall
 * under a retention duty (signed consents: 10 years after the treatment ends, §630f Abs. 3 BGB).
 * A signature request is signed once the patient signed it (`sealing`, `completed`); a submission
 * when an answer of a signature field of the form it answered is set.
 */
async function retentionOf(ctx: OrgContext, records: PatientRecords): Promise<ErasureRetention> {
  const count = sql<number>`count(*)::int`;
  const signatureIds = records.ids.signatureRequests;
  const submissionIds = records.ids.submissions;
  const [documents] =
    signatureIds.length === 0
      ? [{ n: 0 }]
      : await ctx.scope
          .query({ n: count })
          .from(signatureRequests)
          .where(
            and(
              inList(signatureRequests.id, signatureIds),
              inArray(signatureRequests.status, ["sealing", "completed"]),
            ),
          );
  const [forms] =
    submissionIds.length === 0
      ? [{ n: 0 }]
      : await ctx.scope
          .query({ n: count })
          .from(submissions)
          .where(
            and(
              inList(submissions.id, submissionIds),
              sql`exists (select 1 from jsonb_array_elements(${submissions.templateSchema}->'fields') as field(def)
                where field.def->>'type' = 'signature'
                  and coalesce(${submissions.values}->>(field.def->>'key'), '') not in ('', 'null', 'false'))`,
            ),
          );
  const policy = await retentionPolicyOf(ctx);
  return {
    signedDocuments: documents?.n ?? 0,
    signedSubmissions: forms?.n ?? 0,
    periods: { signatureRequests: policy.signatureRequests, submissions: policy.submissions },
  };
}

/**
 * Removes the personal part (metadata, ip, user agent) of audit entries and keeps what their hash
 * covers. An entry with a salt keeps the commitment computed from salt and content, then loses
 * both; an entry not chained yet and without a salt (written before migration 0029) gets a
 * commitment with a fresh salt first, which the chainer then hashes; a chained entry without a
 * salt keeps its hash and links only. The chainer's lock is held meanwhile, so no entry is chained
 * between this read and this write.
 */
async function eraseAuditEntries(ctx: OrgContext, ids: string[], erasureId: string): Promise<void> {
  await ctx.scope.transaction(async (scope) => {
    await holdChainLock(scope);
    const rows = await scope.select(auditLog, inList(auditLog.id, ids), isNull(auditLog.erasedAt)).for("update");
    if (rows.length === 0) return;
    // One statement per batch: each row's commitment, computed here from its salt and content.
    const values = rows.map((row) => {
      const salt = row.personalSalt ?? (row.chainPos === null ? newPersonalSalt() : null);
      return sql`(${row.id}::uuid, ${salt ? personalCommitment(salt, row) : null}::text)`;
    });
    await scope.execute(
      (organizationId) => sql`update audit_log as a set personal_commitment = v.commitment, personal_salt = null,
        metadata = '{}'::jsonb, ip = null, user_agent = null, erased_at = now(), erasure_id = ${erasureId}::uuid
      from (values ${sql.join(values, sql`, `)}) as v(id, commitment)
      where a.organization_id = ${organizationId} and a.id = v.id`,
    );
  });
}

/** Deletes the objects; returns the keys whose deletion failed (the store was unreachable …). */
async function deleteObjects(services: Services, keys: string[]): Promise<string[]> {
  const pending: string[] = [];
  for (const key of keys) {
    try {
      await services.storage.delete(key);
    } catch (error) {
      services.log.warn({ err: error }, "erasure: a stored object could not be deleted yet; the erasure job retries");
      pending.push(key);
    }
  }
  return pending;
}

/**
 * `patient.erasure_objects`: deletes the objects an erasure still lists as pending. Throws while any
 * remains, so the runner retries on its schedule; a receipt without pending keys is a no-op.
 */
export async function finishErasureObjects(ctx: OrgContext, input: { erasureId: string }): Promise<void> {
  const [row] = await ctx.scope.select(patientErasures, eq(patientErasures.id, input.erasureId));
  if (!row || row.pendingKeys.length === 0) return;
  const pending = await deleteObjects(ctx.services, row.pendingKeys);
  await ctx.scope.update(
    patientErasures,
    { pendingKeys: pending, completedAt: pending.length === 0 ? new Date() : null },
    eq(patientErasures.id, row.id),
  );
  if (pending.length > 0) throw new Error(`${pending.length} stored objects of erasure ${row.id} are still to delete`);
}
