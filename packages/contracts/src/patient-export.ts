import { z } from "zod";
import { patientSelectorFields, type PatientSelector } from "./patient-data";

/**
 * The REST body naming a patient (area A's spelling, as `POST /patients/erase` takes it):
 * `patient_id`, `rnummer`, `phone` (E.164), at least one. `POST /patients/export` takes exactly this.
 */
export const restPatientSelector = z
  .object({
    patient_id: patientSelectorFields.patientId,
    rnummer: patientSelectorFields.rnummer,
    phone: patientSelectorFields.phone,
  })
  .strict()
  .refine((s) => s.patient_id !== undefined || s.rnummer !== undefined || s.phone !== undefined, {
    message: "name at least one of patient_id, rnummer, phone",
    path: ["patient_id"],
  });
export type RestPatientSelector = z.infer<typeof restPatientSelector>;

/** The services' selector from the REST body. */
export const selectorOfRest = (body: RestPatientSelector): PatientSelector => ({
  ...(body.patient_id !== undefined && { patientId: body.patient_id }),
  ...(body.rnummer !== undefined && { rnummer: body.rnummer }),
  ...(body.phone !== undefined && { phone: body.phone }),
});
