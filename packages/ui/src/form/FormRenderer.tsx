"use client";

import type { FieldIssue, FieldProblem, FormField, FormValues, TemplateSchema } from "@clinsign/contracts";
import { evaluateForm, visibleFields } from "@clinsign/contracts/form-conditions";
import { scoresShownToPatient } from "@clinsign/contracts/form-flags";
import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import { Button } from "../Button";
import { FieldControl, fieldControlId } from "./FieldControl";
import { loadFormValidation, type FormValidation, type UploadFile } from "./form-parts";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

/** "Name: Please answer…", or without the colon after a label that ends a question. */
const summaryLine = (label: string, message: string) =>
  /[?:!.]$/.test(label.trim()) ? `${label.trim()} ${message}` : `${label}: ${message}`;

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
 * One template rendered as an accessible form: the embedded form, the SMS portal and the staff
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
  const [validation, setValidation] = useState<FormValidation | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [attempted, setAttempted] = useState(false);
  const [summary, setSummary] = useState<readonly FieldIssue[]>([]);
  const [focusRequest, setFocusRequest] = useState(0);
  // Server problems stand until the patient changes that answer.
  const [changedSinceServer, setChangedSinceServer] = useState<ReadonlySet<string>>(new Set());
  const summaryRef = useRef<HTMLDivElement>(null);

  // A template may keep scores from the patient (scoresShownToPatient: false): the server still
  // computes and stores them for the clinic, the patient sees neither the sum nor the band.
  // One evaluation per change of the answers: which fields show, and the scores they hold.
  const state = useMemo(() => evaluateForm(schema, values), [schema, values]);
  const shown = useMemo(() => {
    const fields = visibleFields(schema, values, state);
    return scoresShownToPatient(schema) ? fields : fields.filter((field) => field.type !== "score");
  }, [schema, values, state]);
  // Score fields show what form-scores.ts computes from the answers; they are never typed in.
  const scores = state.scores;
  const byKey = useMemo(() => new Map(schema.fields.filter((f) => f.key).map((f) => [f.key!, f])), [schema]);

  const serverProblems = useMemo(() => {
    const map = new Map<string, FieldProblem>();
    for (const issue of serverIssues ?? [])
      if (!changedSinceServer.has(issue.key) && !map.has(issue.key)) map.set(issue.key, issue);
    return map;
  }, [serverIssues, changedSinceServer]);

  useEffect(() => {
    setChangedSinceServer(new Set());
    if (serverIssues?.length) {
      setSummary(serverIssues.filter((issue) => byKey.has(issue.key)));
      setFocusRequest((n) => n + 1);
    }
  }, [serverIssues, byKey]);

  // After a failed submit, focus goes to the first problem so keyboard and screen-reader users
  // land on it; the summary above lists them all.
  useEffect(() => {
    if (focusRequest === 0) return;
    const first = summary[0];
    const target = first ? document.getElementById(fieldControlId(idPrefix, first.key)) : summaryRef.current;
    (target ?? summaryRef.current)?.focus();
  }, [focusRequest, summary, idPrefix]);

  function problemOf(field: FormField): FieldProblem | null {
    if (!field.key) return null;
    const server = serverProblems.get(field.key);
    if (server) return server;
    if (!validation || !(attempted || touched.has(field.key))) return null;
    return validation.checkFieldValue(field, values[field.key], { phoneCountry });
  }

  function change(key: string, value: unknown) {
    if (!validation) void loadFormValidation().then(setValidation);
    setChangedSinceServer((previous) => (previous.has(key) ? previous : new Set(previous).add(key)));
    onValueChange(key, value);
  }

  function touch(key: string) {
    if (!validation) void loadFormValidation().then(setValidation);
    setTouched((previous) => (previous.has(key) ? previous : new Set(previous).add(key)));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (submitting || disabled) return;
    const loaded = validation ?? (await loadFormValidation());
    setValidation(loaded);
    setAttempted(true);
    const visibleKeys = new Set(shown.map((field) => field.key).filter(Boolean));
    const issues = loaded
      .validateFormValues(schema, values, { phoneCountry })
      .filter((issue) => visibleKeys.has(issue.key));
    setSummary(issues);
    if (issues.length > 0) {
      setFocusRequest((n) => n + 1);
      return;
    }
    const submitted = Object.fromEntries(
      Object.entries(loaded.visibleValues(schema, values)).filter(([, value]) => !loaded.isBlankValue(value)),
    );
    await onSubmit(submitted);
  }

  const hasRequired = shown.some((field) => field.required);
  const openSummary = summary.filter((issue) => {
    const field = byKey.get(issue.key);
    return field && shown.includes(field) && problemOf(field) !== null;
  });

  return (
    <form className={styles.form} onSubmit={submit} noValidate aria-busy={submitting || undefined}>
      {openSummary.length > 0 ? (
        <div
          ref={summaryRef}
          className={styles.summary}
          role="alert"
          tabIndex={-1}
          aria-labelledby={`${idPrefix}-summary-title`}
        >
          <p id={`${idPrefix}-summary-title`} className={styles.summaryTitle}>
            {labels.errorSummaryTitle}
          </p>
          <ul>
            {openSummary.map((issue) => {
              const field = byKey.get(issue.key)!;
              return (
                <li key={issue.key}>
                  <a
                    href={`#${fieldControlId(idPrefix, issue.key)}`}
                    onClick={(event) => {
                      event.preventDefault();
                      document.getElementById(fieldControlId(idPrefix, issue.key))?.focus();
                    }}
                  >
                    {summaryLine(field.label || issue.key, labels.problem(problemOf(field) ?? issue, field))}
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
      ) : null}
      {hasRequired ? <p className={styles.requiredNote}>{labels.requiredNote}</p> : null}
      <div className={styles.fields}>
        {shown.map((field) => (
          <FieldControl
            key={field.id}
            field={field}
            idPrefix={idPrefix}
            value={field.type === "score" ? scores.get(field.key) : field.key ? values[field.key] : undefined}
            problem={problemOf(field)}
            labels={labels}
            disabled={disabled || submitting}
            onChange={(value) => field.key && change(field.key, value)}
            onBlur={() => field.key && touch(field.key)}
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
