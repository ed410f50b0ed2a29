"use client";

import type { PatientErasureReceipt, RetentionPeriod } from "@clinsign/contracts";
import { Notice } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./patient-data.module.css";

/**
 * Before erasing: signed consents and treatment records usually fall under a retention duty (10
 * years after the treatment ends, §630f Abs. 3 BGB). A warning when signed records are among those
 * found, a reminder when forms or documents are; nothing when neither is held. With the
 * organization's own periods, unless `compact` (the confirmation, in front of the full report).
 */
export function RetentionNotice({ report, compact = false }: { report: PatientErasureReceipt; compact?: boolean }) {
  const { t } = useI18n();
  const p = t.patientData;
  const { signedDocuments, signedSubmissions, periods } = report.retention;
  const signed = signedDocuments + signedSubmissions > 0;
  if (!signed && report.counts.signatureRequests + report.counts.submissions === 0) return null;
  const period = (value: RetentionPeriod | null) =>
    value === null
      ? p.periodKept
      : format(value.unit === "years" ? t.retention.periodYears : t.retention.periodDays, { amount: value.amount });
  return (
    <Notice tone={signed ? "warning" : "info"} title={signed ? p.retentionTitle : p.retentionCheckTitle}>
      <div className={styles.noticeText}>
        <p>{p.retentionDuty}</p>
        {compact ? null : (
          <p>
            {format(p.retentionPolicy, {
              signatureRequests: period(periods.signatureRequests),
              submissions: period(periods.submissions),
            })}
          </p>
        )}
      </div>
    </Notice>
  );
}
