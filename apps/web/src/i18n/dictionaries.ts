import { de } from "./de";
import { en } from "./en";
import { patientSections, type Dictionary, type Lang, type PatientDictionary, type PatientLang } from "./index";
import { ar } from "./patient/ar";
import { pl } from "./patient/pl";
import { ru } from "./patient/ru";
import { tr } from "./patient/tr";
import { uk } from "./patient/uk";

export const dictionaries: Record<Lang, Dictionary> = { en, de };

/** The patient-only languages: their texts cover the patient sections only (i18n/patient/). */
const patientOnly: Record<Exclude<PatientLang, Lang>, PatientDictionary> = { tr, ar, ru, uk, pl };

/** The patient pages' slice of one language's texts. */
export function patientDictionary(lang: PatientLang): PatientDictionary {
  if (lang === "en" || lang === "de") {
    const all = dictionaries[lang];
    return Object.fromEntries(patientSections.map((section) => [section, all[section]])) as PatientDictionary;
  }
  return patientOnly[lang];
}
