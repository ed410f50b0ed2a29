"use client";

import { languageEndonyms, patientLanguages, type PatientLanguage, type PatientSelector } from "@clinsign/contracts";
import { Button, Icon, SelectField } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import styles from "./patient-data.module.css";

const fieldNames: (keyof PatientSelector)[] = ["patientId", "rnummer", "phone"];
const languageOptions = patientLanguages.map((code) => ({ value: code, label: languageEndonyms[code], lang: code }));

/**
 * The patient access export (GDPR Art. 15/20) of the patient named: a plain form post to
 * `/staff/patients/export`, so the browser streams the ZIP to disk however large it is (a fetch
 * would hold it in memory) and the identifiers travel in the body, not in an address. The
 * language is the overview page's inside the ZIP: preselected from the patient's own records
 * (`patients.exportLanguage`), else the clinic's, else German until that answer is in.
 */
export function PatientExportForm({ selector }: { selector: PatientSelector }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const suggestion = useQuery(trpc.patients.exportLanguage.queryOptions(selector));
  const [chosen, setChosen] = useState<PatientLanguage | null>(null);
  const language = chosen ?? suggestion.data?.language ?? "de";
  const hint =
    !chosen && suggestion.data
      ? suggestion.data.basis === "patient"
        ? t.patientData.exportLanguagePatient
        : t.patientData.exportLanguageOrganization
      : undefined;
  return (
    <form method="post" action="/staff/patients/export" className={styles.export}>
      {fieldNames.map((name) =>
        selector[name] ? <input key={name} type="hidden" name={name} value={selector[name]} /> : null,
      )}
      <SelectField
        className={styles.exportLanguage}
        label={t.patientData.exportLanguageLabel}
        name="language"
        value={language}
        onChange={(event) => setChosen(event.target.value as PatientLanguage)}
        options={languageOptions}
        hint={hint}
        hintAfter
      />
      <Button type="submit" variant="secondary" icon={<Icon name="document" />}>
        {t.patientData.exportButton}
      </Button>
      <p className={styles.hint}>{t.patientData.exportHint}</p>
    </form>
  );
}
