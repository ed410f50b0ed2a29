import { z } from "zod";
import { listCursor } from "./lists";

/**
 * Inputs of the FHIR R4 door (`/fhir/r4/`, docs/forms-api.md "FHIR"): search parameters as the
 * door collects them from the query (a repeated `authored` as a list). Unknown parameters are
 * refused (400), so a search never silently ignores a filter.
 */

/** A FHIR resource id: our template identifiers and record UUIDs both fit. */
export const fhirId = z.string().regex(/^[A-Za-z0-9.-]{1,64}$/, { message: "is not a FHIR id" });
export const fhirReadInput = z.object({ id: fhirId });

/** A token search value, `[system|]value`. */
const token = z.string().min(1, { message: "must not be empty" }).max(300);
const count = z.coerce
  .number({ message: "must be a number" })
  .int({ message: "must be a whole number" })
  .min(1, { message: "must be 1 to 100" })
  .max(100, { message: "must be 1 to 100" })
  .default(20);
/** `[prefix]date`: prefix eq, gt, ge, lt, le; a date or a dateTime with its zone. */
export const fhirDateParam = z
  .string()
  .regex(/^(eq|gt|ge|lt|le)?\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/, {
    message: "must be [eq|gt|ge|lt|le]YYYY[-MM[-DD[Thh:mm[:ss](Z|±hh:mm)]]]",
  });
const common = {
  _count: count,
  _page: listCursor.optional(),
  _format: z.enum(["json", "application/fhir+json", "application/json"]).optional(),
};

export const questionnaireSearchInput = z.strictObject({
  url: z.string().max(500).optional(),
  identifier: token.optional(),
  status: z.enum(["draft", "active", "retired"]).optional(),
  ...common,
});
export type QuestionnaireSearchInput = z.output<typeof questionnaireSearchInput>;

const patientParams = { "patient:identifier": token.optional(), "subject:identifier": token.optional() };

export const questionnaireResponseSearchInput = z.strictObject({
  ...patientParams,
  questionnaire: z.string().max(500).optional(),
  authored: z.array(fhirDateParam).max(2, { message: "at most two (a range)" }).optional(),
  _sort: z.enum(["authored", "-authored"]).default("-authored"),
  ...common,
});
export type QuestionnaireResponseSearchInput = z.output<typeof questionnaireResponseSearchInput>;

export const documentReferenceSearchInput = z.strictObject({ ...patientParams, ...common });
export type DocumentReferenceSearchInput = z.output<typeof documentReferenceSearchInput>;

/** POST /fhir/r4/Questionnaire: the resource, and what the caller wants back (the `Prefer` header). */
export const questionnaireImportInput = z.object({
  resource: z.record(z.string(), z.unknown()),
  prefer: z.enum(["representation", "OperationOutcome", "minimal"]).default("representation"),
});

/**
 * SDC `$extract` (issue 34): of a stored QuestionnaireResponse (`id`, the submission) or of one the
 * caller sends (`resource`: the QuestionnaireResponse, or Parameters naming it
 * `questionnaire-response`). Exactly one of them.
 */
export const fhirExtractInput = z
  .object({ id: fhirId.optional(), resource: z.record(z.string(), z.unknown()).optional() })
  .refine((input) => (input.id === undefined) !== (input.resource === undefined), {
    message: "give the response's id or the response itself",
  });
