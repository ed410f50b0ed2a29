"use client";

import type { FieldIssue, FieldProblemCode, FormValues, PatientLanguage, Template } from "@clinsign/contracts";
import { textDirection } from "@clinsign/contracts/language-list";
import { Notice } from "@clinsign/ui";
import { FormRenderer, type UploadFile } from "@clinsign/ui/form";
import { useEffect, useMemo, useRef, useState } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { describeApiError, readApiError } from "../../trpc/errors";
import { useOnline } from "../patient/offline/service-worker";
import { ScreenHeading } from "../patient/ScreenHeading";
import { templateRendererLabels } from "./renderer-labels";
import { useDraftAutosave, type SaveState } from "./useDraftAutosave";
import { useDraftRemembersLanguage, useFormLanguage } from "./useFormLanguage";
import styles from "./forms.module.css";

export interface FormFillProps {
  template: Template;
  initialValues: FormValues;
  /**
   * The language the form opens in: the one remembered with the draft, else the preset (embed
   * session, SMS request, the URL's `lang`); null: the page's language.
   */
  initialLanguage?: string | null;
  /** F7 (or the SMS link's draft save), with the language the patient chose; null when this form keeps no draft. */
  saveDraft: ((values: FormValues, language: PatientLanguage) => Promise<{ savedAt: string }>) | null;
  /**
   * Sends the visible answers and the language they were given in, with the page's id of this
   * submission (the same for a resend of the same answers, so a lost answer never makes a second
   * submission); throws the API's error when it refuses them.
   */
  submit(values: FormValues, language: PatientLanguage, actionId: string | undefined): Promise<void>;
  uploadFile?: UploadFile;
  expiresAt?: string | null;
  onDraftSaved?(savedAt: Date): void;
  /** A draft save or the submission was refused for good (session ended, link locked). */
  onRejected?(error: unknown): void;
  /** The organization's phone country: phone fields accept its national numbers. */
  phoneCountry?: string;
  /** Every change of the answers (the page keeps them on the device for a reload offline). */
  onValuesChange?(values: FormValues): void;
  /** The page keeps answers offline: without a network it says so above the form. */
  keepsOffline?: boolean;
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
 * The fill-in screen shared by the embedded form and the SMS link: the template's title, the
 * shared renderer, autosave with its visible state, and the submission with the server's own
 * field problems shown where they belong.
 */
export function FormFill({
  template,
  initialValues,
  initialLanguage = null,
  saveDraft,
  submit,
  uploadFile,
  expiresAt,
  onDraftSaved,
  onRejected,
  phoneCountry,
  onValuesChange,
  keepsOffline = false,
}: FormFillProps) {
  const online = useOnline();
  const { t, locale } = usePatientI18n();
  const { localized, language, chosen } = useFormLanguage(template, initialLanguage);
  const chosenRef = useRef(chosen);
  chosenRef.current = chosen;

  const labels = useMemo(() => templateRendererLabels(t, locale, localized.errors), [t, locale, localized]);
  const [values, setValues] = useState<FormValues>(initialValues);
  const autosave = useDraftAutosave({
    save: saveDraft ? (changed) => saveDraft(changed, chosenRef.current) : null,
    onSaved: onDraftSaved,
    onRejected,
  });
  useDraftRemembersLanguage(saveDraft, chosen);
  const submission = useFormSubmission({ submit, language, autosave, onRejected });

  function change(key: string, value: unknown) {
    setValues((previous) => {
      const next = { ...previous, [key]: value };
      autosave.recordChange(key, value, next);
      return next;
    });
  }
  const changed = useRef(onValuesChange);
  changed.current = onValuesChange;
  useEffect(() => changed.current?.(values), [values]);

  return (
    <article
      className={styles.fill}
      aria-labelledby="portal-heading"
      lang={language}
      dir={textDirection(language)}
      data-form-language={language}
    >
      <FormFillHeader title={localized.title} description={localized.description} expiresAt={expiresAt} />
      {keepsOffline && !online ? <Notice tone="info">{t.forms.offlineNote}</Notice> : null}
      {submission.failure ? (
        <Notice tone="danger" role="alert">
          {submission.failure}
        </Notice>
      ) : null}
      <FormRenderer
        schema={localized.schema}
        values={values}
        onValueChange={change}
        onSubmit={submission.send}
        labels={labels}
        submitLabel={t.forms.submit}
        submitting={submission.submitting}
        serverIssues={submission.serverIssues}
        uploadFile={uploadFile}
        phoneCountry={phoneCountry}
        actions={saveDraft ? <SaveStatus state={autosave.state} /> : null}
      />
    </article>
  );
}

/** The form's title, its description and until when the link can be used. */
function FormFillHeader({
  title,
  description,
  expiresAt,
}: {
  title: string;
  description: string | null;
  expiresAt: string | null | undefined;
}) {
  const { t, locale } = usePatientI18n();
  return (
    <header className={styles.fillHeader}>
      <ScreenHeading>{title}</ScreenHeading>
      {description ? <p className={styles.description}>{description}</p> : null}
      {expiresAt ? (
        <p className="cs-hint">{format(t.forms.expiresAt, { date: formatDateTime(expiresAt, locale) })}</p>
      ) : null}
    </header>
  );
}

/** A random id for one submission; none where the browser has no `crypto.randomUUID` (not a secure context). */
function newActionId(): string | undefined {
  return typeof crypto !== "undefined" && typeof crypto.randomUUID === "function" ? crypto.randomUUID() : undefined;
}

/**
 * Sends the visible answers once the draft's saving has settled. The server's field problems go
 * to the renderer; a refusal for good (session ended, link locked) to the page; anything else is
 * said above the form, and saving goes on.
 */
function useFormSubmission({
  submit,
  language,
  autosave,
  onRejected,
}: {
  submit: FormFillProps["submit"];
  language: PatientLanguage;
  autosave: ReturnType<typeof useDraftAutosave>;
  onRejected: FormFillProps["onRejected"];
}) {
  const { t } = usePatientI18n();
  const [submitting, setSubmitting] = useState(false);
  const [serverIssues, setServerIssues] = useState<FieldIssue[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const action = useRef<{ answers: string; id: string | undefined } | null>(null);

  async function send(visible: FormValues) {
    setSubmitting(true);
    setFailure(null);
    await autosave.settle();
    // One id per submission: the same answers sent again (the first answer was lost) keep it.
    const answers = JSON.stringify([visible, language]);
    if (action.current?.answers !== answers) action.current = { answers, id: newActionId() };
    try {
      await submit(visible, language, action.current.id);
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

  return { submitting, serverIssues, failure, send };
}
