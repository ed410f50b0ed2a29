import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { listInput, listPage } from "./lists";

/**
 * Which patient a legal hold, an erasure or a retention question is about: at least one of the
 * identifiers the records keep. The one selector of patient data (core/retention, erasure).
 *
 * - `patientId`: area A's `patient_id` (signature requests), as the caller sent it (trimmed).
 * - `rnummer`: the case number (Fallnummer) of form requests, embed sessions and submissions.
 * - `phone`: the patient's mobile number as staff type it in the console's new-request forms:
 *   international (`+491701234567`, `0049 170 …`) or national (`0170 1234567`, read in the
 *   organization's phone country). The services read it in E.164, as signature requests, form
 *   requests, embed sessions, submissions and outbox messages store it, and refuse (400 on `phone`)
 *   what is no phone number (core/patients/patient-selector.ts).
 *
 * A record matches when any identifier the selector names equals the record's own.
 */
export const patientSelectorFields = {
  patientId: z
    .string({ message: "must be a string" })
    .trim()
    .min(1, { message: "must not be empty" })
    .max(200, { message: "must be at most 200 characters" })
    .optional(),
  rnummer: z
    .string({ message: "must be a string" })
    .trim()
    .min(1, { message: "must not be empty" })
    .max(64, { message: "must be at most 64 characters" })
    .optional(),
  phone: z
    .string({ message: "must be a string" })
    .trim()
    .min(1, { message: "must not be empty" })
    .max(40, { message: "must be at most 40 characters" })
    .optional(),
};

export const patientSelector = z
  .object(patientSelectorFields)
  .strict()
  .refine((s) => s.patientId !== undefined || s.rnummer !== undefined || s.phone !== undefined, {
    message: "name at least one of patientId, rnummer, phone",
    path: ["patientId"],
  });
export type PatientSelector = z.infer<typeof patientSelector>;

/** A legal hold: while it is active (not released) nothing of the patient it names is deleted. */
export const legalHoldItem = z.object({
  id: uuid,
  patientId: z.string().nullable(),
  rnummer: z.string().nullable(),
  phone: z.string().nullable(),
  reason: z.string(),
  /** The staff member who placed it (name, else e-mail), null when that account is gone or it came from the CLI. */
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  releasedAt: isoDateTime.nullable(),
  releasedBy: z.string().nullable(),
});
export type LegalHoldItem = z.infer<typeof legalHoldItem>;

export const legalHoldReason = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, { message: "is required" })
  .max(500, { message: "must be at most 500 characters" });

export const createLegalHoldInput = z.object({ selector: patientSelector, reason: legalHoldReason });
export type CreateLegalHoldInput = z.infer<typeof createLegalHoldInput>;

export const releaseLegalHoldInput = z.object({ id: uuid });

/** `active`: only holds not released (default); `all`: released ones too. */
export const legalHoldListInput = listInput({ status: z.enum(["active", "all"]).default("active") });
export type LegalHoldListInput = z.infer<typeof legalHoldListInput>;
export const legalHoldPage = listPage(legalHoldItem);

/** The answer of "is any record of this patient under a hold?". */
export const legalHoldCheck = z.object({ held: z.boolean() });
