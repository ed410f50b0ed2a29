import { z } from "zod";

/**
 * The languages patients can read their pages, forms and documents in (issue 19). Staff pages
 * stay in German and English; these are for the patient side and for form content.
 */
export const patientLanguages = ["de", "en", "tr", "ar", "ru", "uk", "pl"] as const;
export type PatientLanguage = (typeof patientLanguages)[number];
export const patientLanguage = z.enum(patientLanguages);

/** Languages written right to left: pages in them get `dir="rtl"`. */
const rightToLeft: ReadonlySet<string> = new Set<PatientLanguage>(["ar"]);

export function isPatientLanguage(value: unknown): value is PatientLanguage {
  return typeof value === "string" && (patientLanguages as readonly string[]).includes(value);
}

export function textDirection(language: string): "rtl" | "ltr" {
  return rightToLeft.has(language) ? "rtl" : "ltr";
}
