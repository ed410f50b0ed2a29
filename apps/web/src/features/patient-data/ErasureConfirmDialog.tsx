"use client";

import type { PatientErasureReceipt, PatientSelector } from "@clinsign/contracts";
import { Badge, Button, Dialog, Field } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useId, useRef, useState, type FormEvent } from "react";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useFocusFirstInvalid } from "../../components/useFocusFirstInvalid";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError, translateValidationMessage, type ApiError } from "../../trpc/errors";
import {
  confirmationTarget,
  confirmsTarget,
  erasureSummary,
  reasonFits,
  type SummaryRow,
} from "./erasure-confirmation";
import { RetentionNotice } from "./RetentionNotice";
import styles from "./patient-data.module.css";

interface ErasureConfirmDialogProps {
  open: boolean;
  /** The patient as checked (the dry run's selector). */
  selector: PatientSelector;
  /** The dry run: what goes, and what may fall under a retention duty. */
  report: PatientErasureReceipt;
  onClose(): void;
  onErased(receipt: PatientErasureReceipt): void;
}

type ConfirmField = "confirmation" | "reason";
const confirmFields: ConfirmField[] = ["confirmation", "reason"];

/** The server's word on a field of the confirmation, in the reader's language. */
function serverMessage(apiError: ApiError | null, field: ConfirmField, fieldName: string, t: Dictionary) {
  const p = t.patientData;
  const issue = apiError?.fieldErrors.find((e) => e.key === field);
  if (!issue) return undefined;
  if (issue.message === "does not match the patient identifier")
    return format(p.confirmationMismatch, { field: fieldName });
  if (issue.message === "must not name the patient's identifiers") return p.reasonNamesPatient;
  if (/^must be at (least 3|most 500) characters$/.test(issue.message)) return p.reasonLength;
  return translateValidationMessage(issue.message, t);
}

/**
 * The confirmation form's state: the identifier typed again and the reason, whether each was
 * judged, and the erasure itself (`dryRun: false`). The server checks both again (400 on the field).
 */
function useErasureConfirmation({ selector, onClose, onErased }: Omit<ErasureConfirmDialogProps, "open" | "report">) {
  const { t } = useI18n();
  const p = t.patientData;
  const trpc = useTRPC();
  const formRef = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<Record<ConfirmField, string>>({ confirmation: "", reason: "" });
  const [checked, setChecked] = useState<Record<ConfirmField, boolean>>({ confirmation: false, reason: false });
  const [refusedSubmits, setRefusedSubmits] = useState(0);
  const erase = useMutation(trpc.patients.erase.mutationOptions({ onSuccess: onErased }));
  useFocusFirstInvalid(formRef, refusedSubmits);
  useFocusFirstInvalid(formRef, erase.error);

  const target = confirmationTarget(selector);
  const fieldName = p.confirmationFields[target.field];
  const valid = { confirmation: confirmsTarget(selector, values.confirmation), reason: reasonFits(values.reason) };
  const apiError = erase.error ? readApiError(erase.error) : null;
  // A field is judged once it was left with something in it (or the form was sent), never while typed.
  const errors: Record<ConfirmField, string | undefined> = {
    confirmation:
      serverMessage(apiError, "confirmation", fieldName, t) ??
      (checked.confirmation && !valid.confirmation
        ? values.confirmation.trim()
          ? format(p.confirmationMismatch, { field: fieldName })
          : t.validation.required
        : undefined),
    reason:
      serverMessage(apiError, "reason", fieldName, t) ?? (checked.reason && !valid.reason ? p.reasonLength : undefined),
  };

  function close() {
    setValues({ confirmation: "", reason: "" });
    setChecked({ confirmation: false, reason: false });
    erase.reset();
    onClose();
  }

  /** A control's value and handlers; the server's error on it goes once it is edited. */
  function control(field: ConfirmField) {
    return {
      name: field,
      value: values[field],
      onChange: (event: { currentTarget: { value: string } }) => {
        const value = event.currentTarget.value;
        setValues((current) => ({ ...current, [field]: value }));
        if (erase.error) erase.reset();
      },
      onBlur: () => setChecked((current) => ({ ...current, [field]: current[field] || values[field].trim() !== "" })),
    };
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!valid.confirmation || !valid.reason) {
      setChecked({ confirmation: true, reason: true });
      setRefusedSubmits((count) => count + 1);
      return;
    }
    erase.mutate({ selector, dryRun: false, confirmation: values.confirmation, reason: values.reason });
  }

  return { formRef, target, fieldName, valid, errors, erase, close, control, onSubmit };
}

/** What an erasure removes, by kind (signed ones flagged), under its own heading. */
function ErasureSummary({ report, headingId }: { report: PatientErasureReceipt; headingId: string }) {
  const { t } = useI18n();
  const p = t.patientData;
  const summaryLabel = (row: SummaryRow) =>
    row.key === "objects"
      ? p.objectsRow
      : row.key === "other"
        ? p.summaryOther
        : row.key === "auditEntries"
          ? p.summaryAudit
          : p.kinds[row.key];
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} className={styles.summaryTitle}>
        {p.summaryTitle}
      </h3>
      <ul className={styles.summary}>
        {erasureSummary(report).map((row) => (
          <li key={row.key}>
            <span>{summaryLabel(row)}</span>
            <span className={styles.summaryCount}>
              {row.signed > 0 ? <Badge tone="warning">{format(p.signedBadge, { count: row.signed })}</Badge> : null}
              <strong>{row.count}</strong>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The last step before an erasure (issue 31): what goes, by kind; the retention warning; the
 * patient identifier typed again and the reason, which the receipt keeps. "Erase now" stays
 * disabled until both are valid; the server checks both again (400 on the field, shown on it).
 */
export function ErasureConfirmDialog({ open, selector, report, onClose, onErased }: ErasureConfirmDialogProps) {
  const { t } = useI18n();
  const p = t.patientData;
  const formId = useId();
  const { formRef, target, fieldName, valid, errors, erase, close, control, onSubmit } = useErasureConfirmation({
    selector,
    onClose,
    onErased,
  });
  const total = report.objects.found + Object.values(report.counts).reduce((sum, n) => sum + n, 0);

  return (
    <Dialog
      open={open}
      onClose={close}
      role="alertdialog"
      title={p.confirmTitle}
      description={format(p.confirmBody, { count: total - report.objects.found, files: report.objects.found })}
      closeLabel={t.common.close}
      footer={
        <>
          <Button variant="secondary" onClick={close} data-autofocus>
            {p.cancel}
          </Button>
          <Button
            type="submit"
            form={formId}
            variant="danger"
            busy={erase.isPending}
            disabled={!valid.confirmation || !valid.reason}
          >
            {p.confirmButton}
          </Button>
        </>
      }
    >
      <ErasureSummary report={report} headingId={`${formId}-summary`} />
      <RetentionNotice report={report} compact />
      <form id={formId} ref={formRef} className="cs-stack" onSubmit={onSubmit} noValidate>
        <Field
          label={p.confirmationLabel}
          hint={format(p.confirmationHint, { field: fieldName, value: target.value })}
          error={errors.confirmation}
        >
          {(attributes) => (
            <input
              {...attributes}
              {...control("confirmation")}
              className="cs-input cs-input--mono"
              autoComplete="off"
              spellCheck={false}
              inputMode={target.field === "phone" ? "tel" : undefined}
            />
          )}
        </Field>
        <Field label={p.reasonLabel} hint={p.reasonHint} error={errors.reason}>
          {(attributes) => (
            <textarea
              {...attributes}
              {...control("reason")}
              className={`cs-input ${styles.reason}`}
              rows={3}
              maxLength={500}
            />
          )}
        </Field>
      </form>
      <ErrorNotice error={erase.error} fields={confirmFields} />
    </Dialog>
  );
}
