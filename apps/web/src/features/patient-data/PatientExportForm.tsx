"use client";

import type { PatientSelector } from "@clinsign/contracts";
import { Button, Icon } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./patient-data.module.css";

const fieldNames: (keyof PatientSelector)[] = ["patientId", "rnummer", "phone"];

/**
 * The patient access export (GDPR Art. 15/20) of the patient named: a plain form post to
 * `/staff/patients/export`, so the browser streams the ZIP to disk however large it is (a fetch
 * would hold it in memory) and the identifiers travel in the body, not in an address.
 */
export function PatientExportForm({ selector }: { selector: PatientSelector }) {
  const { t } = useI18n();
  return (
    <form method="post" action="/staff/patients/export" className={styles.export}>
      {fieldNames.map((name) =>
        selector[name] ? <input key={name} type="hidden" name={name} value={selector[name]} /> : null,
      )}
      <Button type="submit" variant="secondary" icon={<Icon name="document" />}>
        {t.patientData.exportButton}
      </Button>
      <p className={styles.hint}>{t.patientData.exportHint}</p>
    </form>
  );
}
