"use client";

import { erasureRecordKinds, type PatientErasureReceipt, type PatientSelector } from "@clinsign/contracts";
import { Badge, Button, Card, Fact, Facts, Icon, Notice, Table, type TableColumn } from "@clinsign/ui";
import type { RefObject } from "react";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { signedOf } from "./erasure-confirmation";
import { PatientExportForm } from "./PatientExportForm";
import { RetentionNotice } from "./RetentionNotice";
import styles from "./patient-data.module.css";

interface CountRow {
  key: string;
  label: string;
  count: number;
  /** Of them signed: may fall under a retention duty. */
  signed: number;
}

/** The records held (or erased) per kind, then the stored files; kinds with none are left out. */
function countRowsOf(result: PatientErasureReceipt, p: Dictionary["patientData"]): CountRow[] {
  return [
    ...erasureRecordKinds
      .filter((kind) => result.counts[kind] > 0)
      .map((kind) => ({ key: kind, label: p.kinds[kind], count: result.counts[kind], signed: signedOf(result, kind) })),
    ...(result.objects.found > 0
      ? [{ key: "objects", label: p.objectsRow, count: result.objects.found, signed: 0 }]
      : []),
  ];
}

function CountsTable({ rows }: { rows: CountRow[] }) {
  const { t } = useI18n();
  const columns: TableColumn<CountRow>[] = [
    {
      key: "kind",
      header: t.patientData.kindColumn,
      render: (row) => (
        <span className={styles.kind}>
          {row.label}
          {row.signed > 0 ? (
            <Badge tone="warning">{format(t.patientData.signedBadge, { count: row.signed })}</Badge>
          ) : null}
        </span>
      ),
    },
    { key: "count", header: t.patientData.countColumn, render: (row) => row.count },
  ];
  return <Table caption={t.patientData.tableCaption} columns={columns} rows={rows} rowKey={(r) => r.key} />;
}

interface ErasureReportProps {
  /** The dry run. */
  report: PatientErasureReceipt;
  /** The patient as checked, when staff may export what is held. */
  exportSelector: PatientSelector | null;
  headingRef: RefObject<HTMLDivElement | null>;
  onErase(): void;
}

/** The dry run's report: nothing held, or what is held, a legal hold, the retention duty; export and erase. */
export function ErasureReport({ report, exportSelector, headingRef, onErase }: ErasureReportProps) {
  const { t } = useI18n();
  return (
    <div ref={headingRef} tabIndex={-1} aria-label={t.patientData.reportTitle}>
      {report.status === "nothing_found" ? (
        <Notice tone="info" title={t.patientData.nothingFoundTitle}>
          {t.patientData.nothingFoundBody}
        </Notice>
      ) : (
        <Card title={t.patientData.reportTitle} description={t.patientData.reportDescription}>
          {report.legalHold ? (
            <Notice tone="warning" title={t.patientData.legalHoldTitle}>
              {t.patientData.legalHoldBody}
            </Notice>
          ) : null}
          <RetentionNotice report={report} />
          <CountsTable rows={countRowsOf(report, t.patientData)} />
          {exportSelector ? <PatientExportForm selector={exportSelector} /> : null}
          <div className={styles.actions}>
            <Button
              type="button"
              variant="danger"
              icon={<Icon name="trash" />}
              disabled={report.legalHold}
              onClick={onErase}
            >
              {t.patientData.eraseButton}
            </Button>
          </div>
        </Card>
      )}
    </div>
  );
}

/** The erasure's receipt: its id, when, the files deleted, the reason, what is still pending, per kind. */
export function ErasureReceipt({
  receipt,
  headingRef,
}: {
  receipt: PatientErasureReceipt;
  headingRef: RefObject<HTMLDivElement | null>;
}) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const rows = countRowsOf(receipt, t.patientData);
  return (
    <div ref={headingRef} tabIndex={-1} aria-label={t.patientData.receiptTitle}>
      <Card
        title={
          receipt.status === "nothing_found"
            ? t.patientData.receiptAgainTitle
            : receipt.status === "objects_pending"
              ? t.patientData.receiptPendingTitle
              : t.patientData.receiptTitle
        }
        description={t.patientData.receiptIntro}
      >
        <Facts className={styles.receiptFacts}>
          {receipt.erasureId ? (
            <Fact term={t.patientData.erasureIdLabel}>
              <code data-testid="erasure-id">{receipt.erasureId}</code>
            </Fact>
          ) : null}
          <Fact term={t.patientData.erasedAtLabel}>{clinic.dateTimeWithZone(receipt.at)}</Fact>
          <Fact term={t.patientData.filesDeleted}>{receipt.objects.deleted}</Fact>
          {receipt.reason ? (
            <Fact term={t.patientData.reasonReceiptLabel} data-testid="erasure-reason">
              {receipt.reason}
            </Fact>
          ) : null}
        </Facts>
        {receipt.status === "objects_pending" ? (
          <Notice tone="warning">{format(t.patientData.receiptPendingBody, { count: receipt.objects.pending })}</Notice>
        ) : null}
        {rows.length > 0 ? <CountsTable rows={rows} /> : null}
      </Card>
    </div>
  );
}
