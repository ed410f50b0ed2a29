"use client";

import type { DocumentSummary } from "@clinsign/contracts";
import { patientLanguages, type PatientLanguage } from "@clinsign/contracts/language-list";
import { Field, SelectField } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { documentLanguageName } from "../documents/DocumentLanguageSelect";
import styles from "./signature-requests.module.css";

/**
 * A1's `documents_by_language` in the new-request form (issue 19): for each patient language, an
 * optional document the patient gets when their signing page is in that language; none = the
 * main document. Closed until staff open it: most requests need none. One signer only (the form
 * leaves it out for documents with several signers, as the server refuses them).
 */
export function DocumentsByLanguageFieldset({
  documents,
  value,
  onChange,
  error,
}: {
  /** Active documents other than the main one. */
  documents: DocumentSummary[];
  value: Partial<Record<PatientLanguage, string>>;
  onChange(value: Partial<Record<PatientLanguage, string>>): void;
  error(language: PatientLanguage): string | undefined;
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const chosen = patientLanguages.filter((language) => value[language]).length;
  // Documents named in a language first, so the Turkish one is at hand for Turkish.
  const optionsFor = (language: PatientLanguage) =>
    [...documents]
      .sort((a, b) => Number(b.language === language) - Number(a.language === language))
      .map((doc) => ({
        value: doc.id,
        label: `${doc.title || doc.name} (v${doc.currentVersion})${doc.language ? ` · ${documentLanguageName(doc.language)}` : ""}`,
      }));
  return (
    <details className={styles.signers} open={chosen > 0 || undefined}>
      <summary className={styles.signersLegend}>
        {s.byLanguageTitle}
        {chosen > 0 ? ` (${chosen})` : ""}
      </summary>
      <Field
        layout="group"
        className={styles.fieldsetReset}
        label={s.byLanguageTitle}
        hideLabel
        hint={s.byLanguageHint}
      >
        {() => (
          <>
            <div className={styles.formGrid}>
              {patientLanguages.map((language) => (
                <SelectField
                  key={language}
                  id={`new-request-language-${language}`}
                  label={format(s.documentInLanguage, { language: documentLanguageName(language) })}
                  placeholder={s.byLanguageMain}
                  options={optionsFor(language)}
                  value={value[language] ?? ""}
                  error={error(language)}
                  onChange={(event) => onChange({ ...value, [language]: event.target.value || undefined })}
                />
              ))}
            </div>
          </>
        )}
      </Field>
    </details>
  );
}
