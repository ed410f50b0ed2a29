"use client";

import type { FieldIssue, FormValues, TemplateSchema } from "@clinsign/contracts";
import { evaluateForm, visibleFields } from "@clinsign/contracts/form-conditions";
import { scoresShownToPatient } from "@clinsign/contracts/form-flags";
import { useMemo, type FormEvent, type ReactNode } from "react";
import { Button } from "../Button";
import { ErrorSummary } from "./ErrorSummary";
import { FieldControl } from "./FieldControl";
import type { UploadFile } from "./form-parts";
import type { FormRendererLabels } from "./labels";
import { useFormChecks } from "./useFormChecks";
import styles from "./FormRenderer.module.css";

export interface FormRendererProps {
  schema: TemplateSchema;
  values: FormValues;
  onValueChange(key: string, value: unknown): void;
  /** Called with the visible, non-empty values once the browser's checks pass. */
  onSubmit(values: FormValues): void | Promise<void>;
  labels: FormRendererLabels;
  submitLabel: ReactNode;
  submitting?: boolean;
  /** Problems the server found (it validates again); shown like the browser's own. */
  serverIssues?: readonly FieldIssue[];
  /** Sends one file; without it, file fields say that uploads are unavailable here. */
  uploadFile?: UploadFile;
  disabled?: boolean;
  /** Beside the submit button, e.g. the draft's saved state. */
  actions?: ReactNode;
  /** Prefix of element ids, when more than one form is on a page. */
  idPrefix?: string;
  /** ISO country whose national phone numbers ("0170 …") phone fields accept: the organization's (DE by default). */
  phoneCountry?: string;
}

/**
 * One template rendered as an accessible form: the embedded form, the SMS link and the staff
 * preview all use this, with the same conditions (`visibleWhen`) and the same validators as the
 * server. Values are controlled by the page, which saves drafts and submits.
 */
export function FormRenderer({
  schema,
  values,
  onValueChange,
  onSubmit,
  labels,
  submitLabel,
  submitting = false,
  serverIssues,
  uploadFile,
  disabled = false,
  actions,
  idPrefix = "cs-form",
  phoneCountry,
}: FormRendererProps) {
  const { shown, scores, byKey } = useShownFields(schema, values);
  const checks = useFormChecks({ schema, values, shown, byKey, serverIssues, idPrefix, phoneCountry });

  function change(key: string, value: unknown) {
    checks.noteChange(key);
    onValueChange(key, value);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (submitting || disabled) return;
    const submitted = await checks.checkForSubmit();
    if (submitted) await onSubmit(submitted);
  }

  const hasRequired = shown.some((field) => field.required);

  return (
    <form className={styles.form} onSubmit={submit} noValidate aria-busy={submitting || undefined}>
      {checks.openSummary.length > 0 ? (
        <ErrorSummary
          ref={checks.summaryRef}
          idPrefix={idPrefix}
          issues={checks.openSummary}
          fieldOf={(key) => byKey.get(key)!}
          problemOf={checks.problemOf}
          labels={labels}
        />
      ) : null}
      {hasRequired ? <p className={styles.requiredNote}>{labels.requiredNote}</p> : null}
      <div className={styles.fields}>
        {shown.map((field) => (
          <FieldControl
            key={field.id}
            field={field}
            idPrefix={idPrefix}
            value={field.type === "score" ? scores.get(field.key) : field.key ? values[field.key] : undefined}
            problem={checks.problemOf(field)}
            labels={labels}
            disabled={disabled || submitting}
            onChange={(value) => field.key && change(field.key, value)}
            onBlur={() => field.key && checks.touch(field.key)}
            uploadFile={uploadFile}
          />
        ))}
      </div>
      <div className={styles.actions}>
        <Button type="submit" variant="primary" busy={submitting} disabled={disabled}>
          {submitLabel}
        </Button>
        {actions}
      </div>
    </form>
  );
}

/**
 * One evaluation per change of the answers: which fields show, and the scores they hold. A
 * template may keep scores from the patient (scoresShownToPatient: false): the server still
 * computes and stores them for the clinic, the patient sees neither the sum nor the band.
 */
function useShownFields(schema: TemplateSchema, values: FormValues) {
  const state = useMemo(() => evaluateForm(schema, values), [schema, values]);
  const shown = useMemo(() => {
    const fields = visibleFields(schema, values, state);
    return scoresShownToPatient(schema) ? fields : fields.filter((field) => field.type !== "score");
  }, [schema, values, state]);
  const byKey = useMemo(() => new Map(schema.fields.filter((f) => f.key).map((f) => [f.key!, f])), [schema]);
  // Score fields show what form-scores.ts computes from the answers; they are never typed in.
  return { shown, scores: state.scores, byKey };
}
