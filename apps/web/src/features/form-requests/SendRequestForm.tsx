"use client";

import type { CreateFormRequestInput } from "@clinsign/contracts";
import { Button, LiveRegion, Notice, SelectField, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTemplateOptions, type TemplateOption } from "../../components/lists/template-options";
import { useTRPC } from "../../trpc/client";
import { readApiError, translateValidationMessage } from "../../trpc/errors";
import styles from "./form-requests.module.css";
import { ErrorNotice } from "../../components/ErrorNotice";

/**
 * The phone field starts empty: staff type the number as the patient gave it, nationally
 * ("0170 7654321", read in the organization's phone country) or internationally; the API
 * answers it in E.164, which the confirmation shows.
 */
const empty = {
  templateIdentifier: "",
  phone: "",
  rnummer: "",
  from: "",
  emailTo: "",
  emailSubject: "",
  institutionId: "",
  locale: "",
};
type Draft = typeof empty;

/** Sends a form by SMS through F1's service; shows the number as the API normalised it. */
export function SendRequestForm() {
  const { t } = useI18n();
  const f = t.formRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const templates = useTemplateOptions();
  const active = (templates ?? []).filter((item) => item.status === "active");
  // Institutions with their own branding: naming one shows its brand on the patient's form page.
  const institutions = useQuery(trpc.signatures.institutions.queryOptions({ limit: 200 }));
  const branded = (institutions.data?.items ?? []).filter((item) => item.hasBranding);
  const [draft, setDraft] = useState<Draft>(empty);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const providers = useQuery(trpc.messages.providers.queryOptions());

  const create = useMutation(
    trpc.formRequests.create.mutationOptions({
      onSuccess: (result) => {
        setSentTo(result.phone);
        setDraft((current) => ({
          ...empty,
          templateIdentifier: current.templateIdentifier,
          from: current.from,
          institutionId: current.institutionId,
          locale: current.locale,
        }));
        void queryClient.invalidateQueries({ queryKey: trpc.formRequests.list.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.messages.list.pathKey() });
      },
    }),
  );
  const apiError = create.error ? readApiError(create.error) : null;
  const fieldError = (key: string) => {
    const issue = apiError?.fieldErrors.find((e) => e.key === key || e.key.startsWith(`${key}.`));
    return issue ? translateValidationMessage(issue.message, t) : undefined;
  };

  function change(key: keyof Draft, value: string) {
    setDraft((current) => ({ ...current, [key]: value }));
    setSentTo(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(requestInput(draft));
  }

  if (templates && active.length === 0) return <Notice tone="info">{f.noActiveTemplates}</Notice>;

  return (
    <form className="cs-stack" onSubmit={submit} aria-label={f.sendTitle}>
      <SendRequestFields
        templates={active}
        institutions={branded.map((item) => item.institutionId)}
        draft={draft}
        onChange={change}
        fieldError={fieldError}
      />
      <LiveRegion>
        {sentTo ? (
          providers.data?.sms === "outbox" ? (
            <Notice tone="warning">{format(f.sentToOutbox, { phone: sentTo })}</Notice>
          ) : (
            <Notice tone="success">{format(f.sent, { phone: sentTo })}</Notice>
          )
        ) : null}
        <ErrorNotice error={create.error} />
      </LiveRegion>
      <div>
        <Button type="submit" variant="primary" busy={create.isPending}>
          {f.send}
        </Button>
      </div>
    </form>
  );
}

/** The request as the API takes it: trimmed, e-mail addresses split, empty choices left out. */
function requestInput(draft: Draft): CreateFormRequestInput {
  const emailTo = draft.emailTo.split(/[,;\s]+/).filter(Boolean);
  return {
    templateIdentifier: draft.templateIdentifier || undefined,
    phone: draft.phone,
    rnummer: draft.rnummer.trim(),
    ...(draft.from.trim() && { from: draft.from.trim() }),
    ...(emailTo.length > 0 && { emailTo }),
    ...(draft.emailSubject.trim() && { emailSubject: draft.emailSubject.trim() }),
    ...(draft.institutionId && { institutionId: draft.institutionId }),
    ...((draft.locale === "de" || draft.locale === "en") && { locale: draft.locale }),
  };
}

/**
 * The request's inputs: form, phone, case number and sender; the e-mail destination for
 * administrators; the branded institution where there are any; the SMS language.
 */
function SendRequestFields({
  templates,
  institutions,
  draft,
  onChange,
  fieldError,
}: {
  templates: readonly TemplateOption[];
  /** Institutions with their own branding. */
  institutions: readonly string[];
  draft: Draft;
  onChange(key: keyof Draft, value: string): void;
  fieldError(key: keyof Draft): string | undefined;
}) {
  const { t } = useI18n();
  const f = t.formRequestsPage;
  const mayChooseDestinations = canAdminister(useSession());

  /** What an input of the draft takes: its value, its change, and the server's message on it. */
  const bind = (key: keyof Draft) => ({
    value: draft[key],
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => onChange(key, e.target.value),
    error: fieldError(key),
  });

  return (
    <div className={styles.sendGrid}>
      <SelectField
        id="send-template"
        label={f.template}
        placeholder={f.chooseTemplate}
        options={templates.map((item) => ({ value: item.identifier, label: item.title }))}
        required
        {...bind("templateIdentifier")}
      />
      <TextField
        label={f.phone}
        hint={f.phoneHint}
        type="tel"
        inputMode="tel"
        autoComplete="off"
        required
        maxLength={40}
        {...bind("phone")}
      />
      <TextField label={f.rnummer} hint={f.rnummerHint} required minLength={2} maxLength={64} {...bind("rnummer")} />
      <TextField label={f.from} hint={f.fromHint} maxLength={32} {...bind("from")} />
      {/* Where the result is e-mailed is an administrator's choice (the API refuses it from the staff role). */}
      {mayChooseDestinations ? (
        <>
          <TextField label={f.emailTo} hint={f.emailToHint} {...bind("emailTo")} />
          <TextField label={f.emailSubject} maxLength={200} {...bind("emailSubject")} />
        </>
      ) : (
        <p className="cs-hint">{f.emailToAdminOnly}</p>
      )}
      {institutions.length > 0 ? (
        <SelectField
          id="send-institution"
          label={f.institution}
          hint={f.institutionHint}
          placeholder={f.institutionDefault}
          options={institutions.map((institutionId) => ({ value: institutionId }))}
          {...bind("institutionId")}
        />
      ) : null}
      <SelectField
        id="send-locale"
        label={f.smsLanguage}
        placeholder={f.smsLanguageDefault}
        options={[
          { value: "de", label: "Deutsch", lang: "de" },
          { value: "en", label: "English", lang: "en" },
        ]}
        value={draft.locale}
        onChange={(e) => onChange("locale", e.target.value)}
      />
    </div>
  );
}
