"use client";

import {
  can,
  erasureRecordKinds,
  patientSelector,
  type PatientErasureReceipt,
  type PatientSelector,
} from "@clinsign/contracts";
import {
  Badge,
  Button,
  Card,
  Fact,
  Facts,
  Icon,
  LiveRegion,
  Notice,
  Table,
  type TableColumn,
  TextField,
  useAnnouncement,
} from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useSession } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { readApiError, translateValidationMessage } from "../../trpc/errors";
import { ErasureConfirmDialog } from "./ErasureConfirmDialog";
import { signedOf } from "./erasure-confirmation";
import { PatientExportForm } from "./PatientExportForm";
import { RetentionNotice } from "./RetentionNotice";
import styles from "./patient-data.module.css";

type FieldName = keyof PatientSelector;
interface CountRow {
  key: string;
  label: string;
  count: number;
  /** Of them signed: may fall under a retention duty. */
  signed: number;
}
const fieldNames: FieldName[] = ["patientId", "rnummer", "phone"];

/**
 * Patient data (GDPR Art. 17), owners and admins: name the patient → the dry run's report (what is
 * held, or nothing, or a legal hold; signed consents and the retention duty) → confirm with the
 * identifier typed again and a reason (ErasureConfirmDialog) → the receipt, with the reason. One
 * procedure, `patients.erase`.
 */
export function PatientDataPage() {
  const { t } = useI18n();
  const me = useSession();
  if (!can(me.role, "patients.erase"))
    return (
      <>
        <PageHeader title={t.patientData.pageTitle} description={t.patientData.description} />
        <Notice tone="info" title={t.patientData.adminOnlyTitle}>
          {t.patientData.adminOnlyBody}
        </Notice>
      </>
    );
  return <ErasureFlow />;
}

function ErasureFlow() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const me = useSession();
  const trpc = useTRPC();
  const [values, setValues] = useState<Record<FieldName, string>>({ patientId: "", rnummer: "", phone: "" });
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [selector, setSelector] = useState<PatientSelector | null>(null);
  const [report, setReport] = useState<PatientErasureReceipt | null>(null);
  const [receipt, setReceipt] = useState<PatientErasureReceipt | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [announcement, setAnnouncement] = useAnnouncement();
  const firstField = useRef<HTMLInputElement>(null);
  const phoneField = useRef<HTMLInputElement>(null);
  const resultHeading = useRef<HTMLDivElement>(null);
  // Where the focus goes after the render that shows what changed (a new object each time, so the
  // same target twice focuses twice): set with the state it follows, applied once that is on screen.
  const [focusTo, setFocusTo] = useState<{ target: "result" | "first" | "phone" } | null>(null);
  useEffect(() => {
    if (!focusTo) return;
    ({ result: resultHeading, first: firstField, phone: phoneField })[focusTo.target].current?.focus();
  }, [focusTo]);

  const preview = useMutation(
    trpc.patients.erase.mutationOptions({
      onSuccess: (result) => {
        setReport(result);
        setFocusTo({ target: "result" });
      },
      onError: (error) => {
        if (readApiError(error).details.field === "phone") setFocusTo({ target: "phone" });
      },
    }),
  );
  function onErased(result: PatientErasureReceipt) {
    setConfirming(false);
    setReceipt(result);
    setReport(null);
    setAnnouncement(t.patientData.erasedAnnouncement);
    setFocusTo({ target: "result" });
  }
  // The server reads the phone (national numbers in the organization's country) and says when it is none.
  const phoneRefused = preview.error && readApiError(preview.error).details.field === "phone";

  function onCheck(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = Object.fromEntries(
      fieldNames.filter((name) => values[name].trim() !== "").map((name) => [name, values[name].trim()]),
    );
    const parsed = patientSelector.safeParse(trimmed);
    if (!parsed.success) {
      const errors: Partial<Record<FieldName, string>> = {};
      for (const issue of parsed.error.issues) {
        const name = issue.path[0] as FieldName;
        errors[name] ??=
          Object.keys(trimmed).length === 0
            ? t.patientData.selectorMissing
            : translateValidationMessage(issue.message, t);
      }
      setFieldErrors(errors);
      firstField.current?.focus();
      return;
    }
    setFieldErrors({});
    setSelector(parsed.data);
    setReport(null);
    setReceipt(null);
    preview.mutate({ selector: parsed.data, dryRun: true });
  }

  function startOver() {
    // After a receipt the next patient starts from empty fields; before one, the same names are corrected.
    if (receipt) setValues({ patientId: "", rnummer: "", phone: "" });
    setReport(null);
    setReceipt(null);
    setSelector(null);
    preview.reset();
    setFocusTo({ target: "first" });
  }

  const rowsOf = (r: PatientErasureReceipt): CountRow[] => [
    ...erasureRecordKinds
      .filter((kind) => r.counts[kind] > 0)
      .map((kind) => ({
        key: kind,
        label: t.patientData.kinds[kind],
        count: r.counts[kind],
        signed: signedOf(r, kind),
      })),
    ...(r.objects.found > 0
      ? [{ key: "objects", label: t.patientData.objectsRow, count: r.objects.found, signed: 0 }]
      : []),
  ];
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
  const locked = report !== null || receipt !== null;

  return (
    <>
      <PageHeader title={t.patientData.pageTitle} description={t.patientData.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />

        <Card title={t.patientData.selectorTitle} description={t.patientData.selectorDescription}>
          <form onSubmit={onCheck} noValidate>
            <div className={styles.form}>
              {fieldNames.map((name, index) => (
                <TextField
                  key={name}
                  ref={index === 0 ? firstField : name === "phone" ? phoneField : undefined}
                  name={name}
                  label={t.patientData[`${name}Label`]}
                  hint={t.patientData[`${name}Hint`]}
                  autoComplete="off"
                  inputMode={name === "phone" ? "tel" : undefined}
                  mono={name !== "rnummer"}
                  value={values[name]}
                  readOnly={locked}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setValues((current) => ({ ...current, [name]: value }));
                    if (name === "phone" && phoneRefused) preview.reset();
                  }}
                  error={fieldErrors[name] ?? (name === "phone" && phoneRefused ? t.patientData.phoneInvalid : null)}
                />
              ))}
            </div>
            <div className={styles.actions}>
              {locked ? (
                // Keyed apart from the submit button: React must not turn this very element into it
                // during the click, or the browser would submit the form with the click's default action.
                <Button key="start-over" type="button" variant="secondary" onClick={startOver}>
                  {receipt ? t.patientData.startOver : t.patientData.changeSelector}
                </Button>
              ) : (
                <Button
                  key="check"
                  type="submit"
                  variant="primary"
                  icon={<Icon name="refresh" />}
                  busy={preview.isPending}
                >
                  {t.patientData.checkButton}
                </Button>
              )}
            </div>
          </form>
          <ErrorNotice error={preview.error} fields={fieldNames} />
        </Card>

        {report ? (
          <div ref={resultHeading} tabIndex={-1} aria-label={t.patientData.reportTitle}>
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
                <Table
                  caption={t.patientData.tableCaption}
                  columns={columns}
                  rows={rowsOf(report)}
                  rowKey={(r) => r.key}
                />
                {selector && can(me.role, "patients.export") ? <PatientExportForm selector={selector} /> : null}
                <div className={styles.actions}>
                  <Button
                    type="button"
                    variant="danger"
                    icon={<Icon name="trash" />}
                    disabled={report.legalHold}
                    onClick={() => setConfirming(true)}
                  >
                    {t.patientData.eraseButton}
                  </Button>
                </div>
              </Card>
            )}
          </div>
        ) : null}

        {receipt ? (
          <div ref={resultHeading} tabIndex={-1} aria-label={t.patientData.receiptTitle}>
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
                <Notice tone="warning">
                  {format(t.patientData.receiptPendingBody, { count: receipt.objects.pending })}
                </Notice>
              ) : null}
              {rowsOf(receipt).length > 0 ? (
                <Table
                  caption={t.patientData.tableCaption}
                  columns={columns}
                  rows={rowsOf(receipt)}
                  rowKey={(r) => r.key}
                />
              ) : null}
            </Card>
          </div>
        ) : null}
      </div>

      {report && selector ? (
        <ErasureConfirmDialog
          open={confirming}
          selector={selector}
          report={report}
          onClose={() => setConfirming(false)}
          onErased={onErased}
        />
      ) : null}
    </>
  );
}
