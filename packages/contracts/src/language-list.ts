/**
 * The languages patients can read their pages, forms and documents in (issue 19). Staff pages
 * stay in German and English; these are for the patient side and for form content. No zod here:
 * patient pages import this in the browser, where every kilobyte counts (languages.ts adds the
 * schema).
 */
export const patientLanguages = ["de", "en", "tr", "ar", "ru", "uk", "pl"] as const;
export type PatientLanguage = (typeof patientLanguages)[number];

/** Languages written right to left: pages in them get `dir="rtl"`. */
const rightToLeft: ReadonlySet<string> = new Set<PatientLanguage>(["ar"]);

export function isPatientLanguage(value: unknown): value is PatientLanguage {
  return typeof value === "string" && (patientLanguages as readonly string[]).includes(value);
}

export function textDirection(language: string): "rtl" | "ltr" {
  return rightToLeft.has(language) ? "rtl" : "ltr";
}

/** Each language in its own words, as a patient picks it and as staff see what a patient answered in. */
export const languageEndonyms: Record<PatientLanguage, string> = {
  de: "Deutsch",
  en: "English",
  tr: "Türkçe",
  ar: "العربية",
  ru: "Русский",
  uk: "Українська",
  pl: "Polski",
};
