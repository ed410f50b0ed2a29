import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { submission } from "./forms";
import { createdRange, listInput, listPage, rnummerFilter, listSort } from "./lists";
import { templateIdentifier } from "./templates";

// ---- staff: the submissions section ------------------------------------------------------------

/** A yes/no filter: a boolean from the console, "true" or "false" in the export's URL. */
const yesNoFilter = z
  .union([z.boolean(), z.enum(["true", "false"]).transform((text) => text === "true")], {
    message: "must be true or false",
  })
  .optional();

/** A score bound: a number from the console, its digits in the export's URL. */
const scoreBound = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^-?\d{1,7}(\.\d{1,4})?$/)
        .transform(Number),
    ],
    { message: "must be a number" },
  )
  .pipe(
    z.number().finite().min(-1_000_000, { message: "must be at least -1000000" }).max(1_000_000, {
      message: "must be at most 1000000",
    }),
  )
  .optional();

/** The filters of the submissions list, shared by the list and its exports. */
export const submissionFilters = {
  templateIdentifier: templateIdentifier.optional(),
  rnummer: rnummerFilter,
  ...createdRange,
  /** Only submissions with an answer that needs a clinician's attention (`schema.flagged`, form-flags.ts). */
  flagged: yesNoFilter,
  /** Only submissions with a score field whose score is at least this (any score field of the form). */
  minScore: scoreBound,
};

/** Staff: submissions, newest first, by template, rnummer and time. */
export const listSubmissionsInput = listInput(submissionFilters);
export type ListSubmissionsInput = z.input<typeof listSubmissionsInput>;

export const submissionListItem = submission.omit({ values: true }).extend({
  fieldCount: z.number().int(),
  /** The patient's name from the form's name field(s) (`name`, `vorname` + `nachname`, …), if it asked for one. */
  patientName: z.string().nullable(),
  /** The form's computed scores, in form order, under their labels (the template's language). */
  scores: z.array(z.object({ key: z.string(), label: z.string(), score: z.number(), band: z.string().nullable() })),
  /** The answers that need a clinician's attention (form-flags.ts), by field key and label. */
  flagged: z.array(z.object({ key: z.string(), label: z.string() })),
});
export type SubmissionListItem = z.infer<typeof submissionListItem>;
export const submissionListPage = listPage(submissionListItem);

/** GET /staff/submissions/export: the list's filters, streamed as CSV or JSON. */
export const submissionExportQuery = z.object({
  ...submissionFilters,
  sort: listSort.default("newest"),
  format: z.enum(["csv", "json"]).default("csv"),
  /** CSV: beside each choice answer's label, its stored option value and its weight (PHQ-9: 0-3). */
  optionValues: yesNoFilter,
});
export type SubmissionExportQuery = z.input<typeof submissionExportQuery>;

export const submissionAttachment = z.object({ name: z.string(), size: z.number(), type: z.string(), url: z.string() });
export type SubmissionAttachment = z.infer<typeof submissionAttachment>;

/**
 * One answer under its field label, in the template version the submission was made with.
 * `text` is the value as a person reads it (option labels, yes/no, file names); `files` carries
 * fresh signed URLs for attachments; a signature's `value` is its image as a data URL.
 */
export const submissionAnswer = z.object({
  key: z.string(),
  label: z.string(),
  type: z.string(),
  value: z.unknown(),
  text: z.string(),
  files: z.array(submissionAttachment).optional(),
  /** The label in the language the patient answered in, where that differs from the template's default. */
  answeredLabel: z.string().optional(),
});
export type SubmissionAnswer = z.infer<typeof submissionAnswer>;

export const submissionWebhookOutcome = z.object({
  id: uuid,
  url: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  updatedAt: isoDateTime,
});

export const submissionEmailOutcome = z.object({
  id: uuid,
  recipients: z.array(z.string()),
  subject: z.string().nullable(),
  status: z.enum(["queued", "sent", "failed"]),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  sentAt: isoDateTime.nullable(),
});

export const submissionDetail = submission.extend({
  schemaVersion: z.number().int(),
  /** The template's default language when it was submitted (labels are in it); null before issue 19. */
  templateLanguage: z.string().nullable(),
  answers: z.array(submissionAnswer),
  webhooks: z.array(submissionWebhookOutcome),
  emails: z.array(submissionEmailOutcome),
  /** The organization's IANA time zone: the detail page shows times on the clinic's clock. */
  timeZone: z.string(),
  /** SHA-256 (hex) of the canonical JSON of the submission, as the PDF's footer prints it. */
  sha256: z.string(),
});
export type SubmissionDetail = z.infer<typeof submissionDetail>;
