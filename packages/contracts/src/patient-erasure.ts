import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { patientSelector, patientSelectorFields, type PatientSelector } from "./patient-data";
import { retentionPeriod } from "./retention";

/** The kinds of records an erasure reports, in the order it removes them. */
export const erasureRecordKinds = [
  "embedSessions",
  "drafts",
  "submissions",
  "uploads",
  "formRequests",
  "otpChallenges",
  "signatureRequests",
  "signingCredentials",
  "signatureNotices",
  "messages",
  "webhookDeliveries",
  "webhookAttempts",
  "fhirDeliveries",
  "jobs",
  "auditEntries",
] as const;
export type ErasureRecordKind = (typeof erasureRecordKinds)[number];

/**
 * The identifier an erasure's confirmation repeats (issue 31): the patient ID when the selector
 * names one, else the case number, else the phone. The console asks for it by this rule; the
 * service compares after the selector's own normalisation (trimmed; a phone in E.164).
 */
export function confirmationFieldOf(selector: Partial<PatientSelector>): keyof PatientSelector {
  if (selector.patientId?.trim()) return "patientId";
  if (selector.rnummer?.trim()) return "rnummer";
  return "phone";
}

/**
 * Why the patient's data is erased, in staff's own words (e.g. "Art. 17 request of 03.12., no
 * treatment took place"): required to erase, kept on the receipt (`patient_erasures.reason`) and
 * shown with it to those who may erase; never logged. It must not name the patient's identifiers:
 * the receipt outlives the data.
 */
export const erasureReason = z
  .string({ message: "must be a string" })
  .trim()
  .min(3, { message: "must be at least 3 characters" })
  .max(500, { message: "must be at most 500 characters" });

/** The patient's identifier typed again (`confirmationFieldOf`). */
export const erasureConfirmation = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, { message: "is required" })
  .max(200, { message: "must be at most 200 characters" });

/** An erasure (not a dry run) needs the identifier typed again and a reason: issues on the missing ones. */
function requireConfirmationAndReason(
  input: { dryRun: boolean; confirmation?: string; reason?: string },
  ctx: z.RefinementCtx,
): void {
  if (input.dryRun) return;
  if (input.confirmation === undefined)
    ctx.addIssue({ code: "custom", path: ["confirmation"], message: "is required" });
  if (input.reason === undefined) ctx.addIssue({ code: "custom", path: ["reason"], message: "is required" });
}

/**
 * Staff and CLI: which patient, and whether only to report (dry run). To erase, also the patient's
 * identifier typed again (`confirmation`, must match: 400 otherwise) and the `reason` (3–500 characters).
 */
export const patientErasureInput = z
  .object({
    selector: patientSelector,
    dryRun: z.boolean().default(false),
    confirmation: erasureConfirmation.optional(),
    reason: erasureReason.optional(),
  })
  .superRefine(requireConfirmationAndReason);
export type PatientErasureInput = z.input<typeof patientErasureInput>;

const counts = z.object(
  Object.fromEntries(erasureRecordKinds.map((kind) => [kind, z.number().int().min(0)])) as Record<
    ErasureRecordKind,
    z.ZodNumber
  >,
);

/**
 * What an erasure found and did. Counts, ids' digests, object numbers and staff's reason: a receipt
 * never carries the patient's identifiers or values, so it can be kept and passed on.
 * - `preview`: a dry run; nothing changed.
 * - `nothing_found`: no record of the patient (a repeated erasure ends here and changes nothing).
 * - `erased`: rows deleted (audit entries: personal part removed), every stored object deleted.
 * - `objects_pending`: rows deleted; some stored objects could not be deleted yet and a job retries them.
 */
/**
 * What usually keeps records longer than an erasure request (issue 31), shown before erasing.
 * Signed consents and the documentation of a treatment must be kept 10 years after the treatment
 * ends (§630f Abs. 3 BGB; longer where other law says so): erasing them is for records that fall
 * under no such duty (no treatment took place, the period has passed).
 */
export const erasureRetention = z.object({
  /** Signature requests the patient signed (completed with a sealed PDF, or being sealed). */
  signedDocuments: z.number().int().min(0),
  /** Submitted forms with a signature answer. */
  signedSubmissions: z.number().int().min(0),
  /** The organization's retention periods of these kinds (Settings → Data retention); null: no period set, kept. */
  periods: z.object({ signatureRequests: retentionPeriod.nullable(), submissions: retentionPeriod.nullable() }),
});
export type ErasureRetention = z.infer<typeof erasureRetention>;

export const patientErasureReceipt = z.object({
  erasureId: uuid.nullable(),
  status: z.enum(["preview", "nothing_found", "erased", "objects_pending"]),
  dryRun: z.boolean(),
  at: isoDateTime,
  actor: z.object({ type: z.string(), id: z.string().nullable() }),
  /** An active legal hold names the patient: erasure is refused (409) while it stands. */
  legalHold: z.boolean(),
  counts,
  /** SHA-256 (hex) of each kind's sorted record ids, one id a line; kinds without records are left out. */
  digests: z.record(z.string(), z.string()),
  objects: z.object({
    found: z.number().int().min(0),
    deleted: z.number().int().min(0),
    pending: z.number().int().min(0),
  }),
  /** Signed records among those found, and the organization's periods: what may fall under a retention duty. */
  retention: erasureRetention,
  /** Why staff erased (kept on the receipt); null for a dry run and when nothing was found. */
  reason: z.string().nullable(),
});
export type PatientErasureReceipt = z.infer<typeof patientErasureReceipt>;

/**
 * The hospital-system door (`POST /patients/erase`): area A's snake_case names. To erase (not a dry
 * run) `confirmation` (the patient identifier again: `patient_id`, else `rnummer`, else `phone`) and
 * `reason` are required, as in the console.
 */
export const restPatientErasureInput = z
  .object({
    patient_id: patientSelectorFields.patientId,
    rnummer: patientSelectorFields.rnummer,
    phone: patientSelectorFields.phone,
    dry_run: z.boolean({ message: "must be true or false" }).default(false),
    confirmation: erasureConfirmation.optional(),
    reason: erasureReason.optional(),
  })
  .strict()
  .refine((s) => s.patient_id !== undefined || s.rnummer !== undefined || s.phone !== undefined, {
    message: "name at least one of patient_id, rnummer, phone",
    path: ["patient_id"],
  })
  .superRefine((input, ctx) => requireConfirmationAndReason({ ...input, dryRun: input.dry_run }, ctx));

export const restPatientErasureReceipt = z.object({
  erasure_id: uuid.nullable(),
  status: patientErasureReceipt.shape.status,
  dry_run: z.boolean(),
  at: isoDateTime,
  legal_hold: z.boolean(),
  counts,
  digests: z.record(z.string(), z.string()),
  objects: patientErasureReceipt.shape.objects,
  retention: z.object({
    signed_documents: z.number().int().min(0),
    signed_submissions: z.number().int().min(0),
    periods: z.object({
      signature_requests: retentionPeriod.nullable(),
      submissions: retentionPeriod.nullable(),
    }),
  }),
  reason: z.string().nullable(),
});
export type RestPatientErasureReceipt = z.infer<typeof restPatientErasureReceipt>;

export const restReceiptOf = (r: PatientErasureReceipt): RestPatientErasureReceipt => ({
  erasure_id: r.erasureId,
  status: r.status,
  dry_run: r.dryRun,
  at: r.at,
  legal_hold: r.legalHold,
  counts: r.counts,
  digests: r.digests,
  objects: r.objects,
  retention: {
    signed_documents: r.retention.signedDocuments,
    signed_submissions: r.retention.signedSubmissions,
    periods: {
      signature_requests: r.retention.periods.signatureRequests,
      submissions: r.retention.periods.submissions,
    },
  },
  reason: r.reason,
});
