import type { ReactNode } from "react";
import { PatientProviders } from "../../features/patient/PatientProviders";
import { getPatientDictionary } from "../../i18n/server";

/**
 * Patient-facing pages: no admin shell, no staff session, only the patient texts of the page's
 * language (one of seven; another is fetched when the patient switches); each page brands itself.
 */
export default async function PatientLayout({ children }: { children: ReactNode }) {
  const { lang, t } = await getPatientDictionary();
  return (
    <PatientProviders lang={lang} texts={t}>
      {children}
    </PatientProviders>
  );
}
