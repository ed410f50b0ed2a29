"use client";

import type { ReactNode } from "react";
import type { PatientDictionary, PatientLang } from "../../i18n";
import { I18nProvider } from "../../i18n/I18nProvider";
import { useServiceWorker } from "./offline/service-worker";

export function PatientProviders({
  lang,
  texts,
  children,
}: {
  lang: PatientLang;
  /** The patient texts of `lang` only; another language's come when the patient switches. */
  texts: PatientDictionary;
  children: ReactNode;
}) {
  // Patient pages keep working offline once opened (public/sw.js); staff pages never register it.
  useServiceWorker();
  return (
    <I18nProvider lang={lang} scope="patient" dictionaries={{ [lang]: texts }}>
      {children}
    </I18nProvider>
  );
}
