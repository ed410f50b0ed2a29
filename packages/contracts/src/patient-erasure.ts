import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { patientSelector, patientSelectorFields } from "./patient-data";

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
  "jobs",
  "auditEntries",
] as const;
export type ErasureRecordKind = (typeof erasureRecordKinds)[number];

/** Staff and CLI: which patient, and whether only to report (dry run). */
export const patientErasureInput = z.object({ selector: patientSelector, dryRun: z.boolean().default(false) });
export type PatientErasureInput = z.input<typeof patientErasureInput>;

const counts = z.object(
  Object.fromEntries(erasureRecordKinds.map((kind) => [kind, z.number().int().min(0)])) as Record<
    ErasureRecordKind,
    z.ZodNumber
  >,
);

/**
 * What an erasure found and did. Counts, ids' digests and object numbers only: a receipt never
 * carries the patient's identifiers or values, so it can be kept and passed on.
 * - `preview`: a dry run; nothing changed.
 * - `nothing_found`: no record of the patient (a repeated erasure ends here and changes nothing).
 * - `erased`: rows deleted (audit entries: personal part removed), every stored object deleted.
 * - `objects_pending`: rows deleted; some stored objects could not be deleted yet and a job retries them.
 */
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
});
export type PatientErasureReceipt = z.infer<typeof patientErasureReceipt>;

/** The hospital-system door (`POST /patients/erase`): area A's snake_case names. */
export const restPatientErasureInput = z
  .object({
    patient_id: patientSelectorFields.patientId,
    rnummer: patientSelectorFields.rnummer,
    phone: patientSelectorFields.phone,
    dry_run: z.boolean({ message: "must be true or false" }).default(false),
  })
  .strict()
  .refine((s) => s.patient_id !== undefined || s.rnummer !== undefined || s.phone !== undefined, {
    message: "name at least one of patient_id, rnummer, phone",
    path: ["patient_id"],
  });

export const restPatientErasureReceipt = z.object({
  erasure_id: uuid.nullable(),
  status: patientErasureReceipt.shape.status,
  dry_run: z.boolean(),
  at: isoDateTime,
  legal_hold: z.boolean(),
  counts,
  digests: z.record(z.string(), z.string()),
  objects: patientErasureReceipt.shape.objects,
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
});
