"use client";

import type { ReactNode } from "react";
import type { Lang, PatientDictionary } from "../../i18n";
import { I18nProvider } from "../../i18n/I18nProvider";

export function PatientProviders({
  lang,
  dictionaries,
  children,
}: {
  lang: Lang;
  dictionaries: Record<Lang, PatientDictionary>;
  children: ReactNode;
}) {
  return (
    <I18nProvider lang={lang} scope="patient" dictionaries={dictionaries}>
      {children}
    </I18nProvider>
  );
}
