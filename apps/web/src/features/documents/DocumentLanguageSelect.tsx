"use client";

import { languageEndonyms, patientLanguages, type PatientLanguage } from "@clinsign/contracts/language-list";
import { SelectField } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";

/** Each language in its own words, with its code (as the translations panel names them). */
export const documentLanguageName = (code: PatientLanguage) => `${languageEndonyms[code]} (${code})`;

/**
 * The language a document version is written in (issue 19): one select for the upload, the
 * URL registration and the new-version form. "Not named" sends null.
 */
export function DocumentLanguageSelect({
  value,
  onChange,
}: {
  value: PatientLanguage | null;
  onChange: (language: PatientLanguage | null) => void;
}) {
  const { t } = useI18n();
  const d = t.documentsPage;
  return (
    <SelectField
      label={d.language}
      hint={d.languageHint}
      placeholder={d.languageNone}
      options={patientLanguages.map((code) => ({ value: code, label: documentLanguageName(code), lang: code }))}
      value={value ?? ""}
      onChange={(event) => onChange((event.target.value || null) as PatientLanguage | null)}
    />
  );
}
