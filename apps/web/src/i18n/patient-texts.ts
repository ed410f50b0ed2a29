"use server";

import { patientDictionary } from "./dictionaries";
import { isPatientLanguage, type PatientDictionary } from "./index";

/**
 * The patient texts of one language, fetched when a patient switches language: a patient page
 * carries only its own language's texts (the layout hands them over), so switching to Arabic
 * downloads the Arabic texts then, and never the other five.
 */
export async function loadPatientTexts(lang: string): Promise<PatientDictionary> {
  if (!isPatientLanguage(lang)) throw new Error("unknown language");
  return patientDictionary(lang);
}
