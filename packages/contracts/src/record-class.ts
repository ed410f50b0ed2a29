import { z } from "zod";
import { resourceId } from "./signatures";

/**
 * How a hospital files a signed document (issue 34): its type in the KDL (the German
 * "Klinische Dokumentenklassen-Liste", code system http://dvmd.de/fhir/CodeSystem/kdl, which
 * ISiKDokumentenMetadaten binds `type` to) and its confidentiality (v3-Confidentiality N/R/V).
 * Chosen per document in the console; the FHIR push writes them on the sealed PDF's
 * DocumentReference.
 */

/**
 * The KDL classes of what a patient signs: the informed-consent forms, consents and declarations,
 * powers and contracts of the administrative chapter (AM), and the research consent. KDL is
 * German only; its displays are the code system's own.
 */
export const KDL_TYPE_CODES = [
  "AM010301",
  "AM010302",
  "AM010303",
  "AM010304",
  "AM010399",
  "AM050101",
  "AM050102",
  "AM050104",
  "AM050105",
  "AM050106",
  "AM050107",
  "AM050108",
  "AM050109",
  "AM050110",
  "AM050111",
  "AM050199",
  "AM160103",
  "AM160104",
  "AM160201",
  "AM170103",
  "AM220101",
  "AM220102",
  "AM220199",
  "SF190102",
] as const;
export type KdlTypeCode = (typeof KDL_TYPE_CODES)[number];

/** Each code's display, the code system's own. */
export const KDL_DISPLAYS: Record<KdlTypeCode, string> = {
  AM010301: "Anästhesieaufklärungsbogen",
  AM010302: "Diagnostischer Aufklärungsbogen",
  AM010303: "Operationsaufklärungsbogen",
  AM010304: "Aufklärungsbogen Therapie",
  AM010399: "Sonstiger Aufklärungsbogen",
  AM050101: "Datenschutzerklärung",
  AM050102: "Einverständniserklärung",
  AM050104: "Einverständniserklärung Abrechnung",
  AM050105: "Einverständniserklärung Behandlung",
  AM050106: "Einwilligung und Datenschutzerklärung Entlassungsmanagement",
  AM050107: "Schweigepflichtentbindung",
  AM050108: "Entlassung gegen ärztlichen Rat",
  AM050109: "Aufforderung zur Herausgabe der medizinischen Dokumentation",
  AM050110: "Aufforderung zur Löschung der medizinischen Dokumentation",
  AM050111: "Aufforderung zur Berichtigung der medizinischen Dokumentation",
  AM050199: "Sonstige Einwilligung/Erklärung",
  AM160103: "Vorsorgevollmacht",
  AM160104: "Patientenverfügung",
  AM160201: "Belehrung",
  AM170103: "Patientenfragebogen",
  AM220101: "Behandlungsvertrag",
  AM220102: "Wahlleistungsvertrag",
  AM220199: "Sonstiger Vertrag",
  SF190102: "Einwilligung Studie",
};

export const kdlTypeCode = z.enum(KDL_TYPE_CODES, {
  error: "must be one of the KDL document types the console offers",
});

/** Without a choice: "Sonstige Einwilligung/Erklärung", the widest class of what ClinSign seals. */
export const DEFAULT_KDL_TYPE_CODE: KdlTypeCode = "AM050199";

/** Normal, restricted, very restricted (v3-Confidentiality, as ISiK allows). */
export const CONFIDENTIALITIES = ["N", "R", "V"] as const;
export const confidentiality = z.enum(CONFIDENTIALITIES, { error: "must be N, R or V" });
export type Confidentiality = z.infer<typeof confidentiality>;

/** A document's filing: its KDL type (null: the default) and confidentiality. */
export const documentRecordClass = z.object({ kdlType: kdlTypeCode.nullable(), confidentiality });
export type DocumentRecordClass = z.infer<typeof documentRecordClass>;

export const setRecordClassInput = documentRecordClass.extend({ id: resourceId });
export type SetRecordClassInput = z.infer<typeof setRecordClassInput>;

/** A stored KDL code read back: one of the list, or null (the default) for anything else. */
export const storedKdlType = (value: string | null): KdlTypeCode | null => {
  const parsed = kdlTypeCode.safeParse(value);
  return parsed.success ? parsed.data : null;
};
