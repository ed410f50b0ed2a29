import { z } from "zod";
import { patientLanguages } from "./language-list";
import { patientSelector, patientSelectorFields, type PatientSelector } from "./patient-data";

/**
 * The language of the export's overview page (index.html): one of the seven patient languages
 * (Arabic right to left). Absent: the patient's own language where their records name one (the
 * language they last answered or signed in), else the organization's, else German.
 */
export const patientExportLanguage = z.enum(patientLanguages, {
  message: `must be one of ${patientLanguages.join(", ")}`,
});

/** `patients.export`: the patient, and the language their overview page is written in. */
export const patientExportInput = z.object({
  selector: patientSelector,
  language: patientExportLanguage.optional(),
});
export type PatientExportInput = z.infer<typeof patientExportInput>;

const atLeastOne =
  <K extends string>(...keys: K[]) =>
  (s: Partial<Record<K, unknown>>) =>
    keys.some((k) => s[k] !== undefined);

/**
 * The console's plain form post (`POST /staff/patients/export`): the selector's fields and the
 * language, flat, as a form sends them.
 */
export const consolePatientExportForm = z
  .object({ ...patientSelectorFields, language: patientExportLanguage.optional() })
  .strict()
  .refine(atLeastOne("patientId", "rnummer", "phone"), {
    message: "name at least one of patientId, rnummer, phone",
    path: ["patientId"],
  });

/** The service's input from the console's form. */
export const exportInputOfForm = ({
  language,
  ...selector
}: z.infer<typeof consolePatientExportForm>): PatientExportInput => ({
  selector,
  ...(language && { language }),
});

/**
 * The REST body of `POST /patients/export`: the patient in area A's spelling (as
 * `POST /patients/erase` takes it: `patient_id`, `rnummer`, `phone` in E.164, at least one) and
 * the overview page's `language`.
 */
export const restPatientExportInput = z
  .object({
    patient_id: patientSelectorFields.patientId,
    rnummer: patientSelectorFields.rnummer,
    phone: patientSelectorFields.phone,
    language: patientExportLanguage.optional(),
  })
  .strict()
  .refine(atLeastOne("patient_id", "rnummer", "phone"), {
    message: "name at least one of patient_id, rnummer, phone",
    path: ["patient_id"],
  });
export type RestPatientExportInput = z.infer<typeof restPatientExportInput>;

/** The services' selector from the REST body. */
export const selectorOfRest = (body: RestPatientExportInput): PatientSelector => ({
  ...(body.patient_id !== undefined && { patientId: body.patient_id }),
  ...(body.rnummer !== undefined && { rnummer: body.rnummer }),
  ...(body.phone !== undefined && { phone: body.phone }),
});

/** The service's input from the REST body. */
export const exportInputOfRest = (body: RestPatientExportInput): PatientExportInput => ({
  selector: selectorOfRest(body),
  ...(body.language && { language: body.language }),
});

/**
 * `patients.exportLanguage`: the language the console preselects for a patient's export: the
 * patient's own (`basis: "patient"`, the language of their newest form, signature or invitation)
 * where known, else the organization's.
 */
export const patientExportLanguageSuggestion = z.object({
  language: patientExportLanguage,
  basis: z.enum(["patient", "organization"]),
});
export type PatientExportLanguageSuggestion = z.infer<typeof patientExportLanguageSuggestion>;
