import { de } from "./de";
import { en } from "./en";
import { patientSections, type Dictionary, type Lang, type PatientDictionary } from "./index";

export const dictionaries: Record<Lang, Dictionary> = { en, de };

/** The patient pages' slice of one language's texts. */
export function patientDictionary(lang: Lang): PatientDictionary {
  const all = dictionaries[lang];
  return Object.fromEntries(patientSections.map((section) => [section, all[section]])) as PatientDictionary;
}
