"use client";

import type { FieldIssue, FieldProblemCode, FormValues, Template } from "@clinsign/contracts";
import { Notice } from "@clinsign/ui";
import { FormRenderer, type UploadFile } from "@clinsign/ui/form";
import { useMemo, useState } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { describeApiError, readApiError } from "../../trpc/errors";
import { ScreenHeading } from "../patient/ScreenHeading";
import { rendererLabels } from "./renderer-labels";
import { useDraftAutosave, type SaveState } from "./useDraftAutosave";
import styles from "./forms.module.css";

export interface FormFillProps {
  template: Template;
  initialValues: FormValues;
  /** F7 (or the SMS portal's draft save); null when this form keeps no draft. */
  saveDraft: ((values: FormValues) => Promise<{ savedAt: string }>) | null;
  /** Sends the visible answers; throws the API's error when it refuses them. */
  submit(values: FormValues): Promise<void>;
  uploadFile?: UploadFile;
  expiresAt?: string | null;
  onDraftSaved?(savedAt: Date): void;
  /** A draft save or the submission was refused for good (session ended, link locked). */
  onRejected?(error: unknown): void;
  /** The organization's phone country: phone fields accept its national numbers. */
  phoneCountry?: string;
}

function SaveStatus({ state }: { state: SaveState }) {
  const { t, locale } = usePatientI18n();
  const text =
    state.kind === "saving"
      ? t.forms.saving
      : state.kind === "saved"
        ? format(t.forms.savedAt, {
            time: new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" }).format(state.at),
          })
        : state.kind === "offline"
          ? t.forms.offline
          : state.kind === "retrying"
            ? t.forms.saveFailed
            : t.forms.autosaveNote;
  return (
    <p className={styles.saveState} data-state={state.kind} role="status" aria-live="polite">
      {text}
    </p>
  );
}

/**
 * The fill-in screen shared by the embedded form and the SMS portal: the template's title, the
 * shared renderer, autosave with its visible state, and the submission with the server's own
 * field problems shown where they belong.
 */
export function FormFill({
  template,
  initialValues,
  saveDraft,
  submit,
  uploadFile,
  expiresAt,
  onDraftSaved,
  onRejected,
  phoneCountry,
}: FormFillProps) {
  const { t, locale } = usePatientI18n();
  const labels = useMemo(() => rendererLabels(t, locale), [t, locale]);
  const [values, setValues] = useState<FormValues>(initialValues);
  const [submitting, setSubmitting] = useState(false);
  const [serverIssues, setServerIssues] = useState<FieldIssue[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const autosave = useDraftAutosave({ save: saveDraft, onSaved: onDraftSaved, onRejected });

  function change(key: string, value: unknown) {
    setValues((previous) => {
      const next = { ...previous, [key]: value };
      autosave.recordChange(key, value, next);
      return next;
    });
  }

  async function send(visible: FormValues) {
    setSubmitting(true);
    setFailure(null);
    await autosave.settle();
    try {
      await submit(visible);
    } catch (error) {
      autosave.resume();
      const api = readApiError(error);
      if (api.code === "BAD_REQUEST" && api.fieldErrors.length > 0) {
        // The server sends a code with every problem but the file checks only it can make.
        setServerIssues(
          api.fieldErrors.map((issue) => ({
            key: issue.key,
            code: (issue.code as FieldProblemCode | undefined) ?? "files_invalid",
            params: issue.params,
          })),
        );
      } else if (
        api.code === "UNAUTHORIZED" ||
        api.code === "FORBIDDEN" ||
        api.code === "NOT_FOUND" ||
        api.code === "CONFLICT"
      ) {
        onRejected?.(error);
      } else {
        setFailure(`${t.forms.submitFailed} ${describeApiError(api, t)}`);
      }
      setSubmitting(false);
    }
  }

  return (
    <article className={styles.fill} aria-labelledby="portal-heading">
      <header className={styles.fillHeader}>
        <ScreenHeading dir="auto">{template.title}</ScreenHeading>
        {template.description ? <p className={styles.description}>{template.description}</p> : null}
        {expiresAt ? (
          <p className="cs-hint">{format(t.forms.expiresAt, { date: formatDateTime(expiresAt, locale) })}</p>
        ) : null}
      </header>
      {failure ? (
        <Notice tone="danger" role="alert">
          {failure}
        </Notice>
      ) : null}
      <FormRenderer
        schema={template.schema}
        values={values}
        onValueChange={change}
        onSubmit={send}
        labels={labels}
        submitLabel={t.forms.submit}
        submitting={submitting}
        serverIssues={serverIssues}
        uploadFile={uploadFile}
        phoneCountry={phoneCountry}
        actions={saveDraft ? <SaveStatus state={autosave.state} /> : null}
      />
    </article>
  );
}
