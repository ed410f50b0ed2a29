import type { ReactNode } from "react";
import { PatientProviders } from "../../features/patient/PatientProviders";
import { patientDictionary } from "../../i18n/dictionaries";
import { getLang } from "../../i18n/server";

/**
 * Patient-facing pages: no admin shell, no staff session, only the patient texts of both
 * languages (as props: the language switch works without the server); each page brands itself.
 */
export default async function PatientLayout({ children }: { children: ReactNode }) {
  const dictionaries = { en: patientDictionary("en"), de: patientDictionary("de") };
  return (
    <PatientProviders lang={await getLang()} dictionaries={dictionaries}>
      {children}
    </PatientProviders>
  );
}
