"use client";

import type { SubmitResult } from "@clinsign/contracts";
import { useEffect, useState, type RefObject } from "react";
import { isPatientLanguage } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import type { PatientApi } from "../patient/api";
import type { EmbedBridge } from "./embed-bridge";
import { safeRedirect } from "./embed-redirect";
import type { EmbedPage, ReadyForm } from "./embedded-form-state";
import { FormFill } from "./FormFill";
import { FormStatusScreen } from "./FormStatusScreen";
import { withoutHeldFiles, type OfflineForm } from "./use-offline-form";

/** Whether the page is framed (the host's frame gets the compact shell); the URL's language, once. */
export function useFramedPage(langParam: string | null) {
  const { lang, setLang } = usePatientI18n();
  const [framed, setFramed] = useState(false);
  useEffect(() => {
    setFramed(window.parent !== window);
    if (isPatientLanguage(langParam) && langParam !== lang) setLang(langParam);
    // Only the URL's own language, once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return framed;
}

/**
 * The confirmation after submitting: "Continue" to the template's redirect, or on a shared device
 * "Next person" (`onNextPerson`), which starts an empty form.
 */
export function EmbeddedFormDone({
  result,
  nextPerson,
  onRetry,
  onNextPerson,
}: {
  result: SubmitResult;
  nextPerson: boolean;
  onRetry(): void;
  onNextPerson(): void;
}) {
  const { t } = usePatientI18n();
  const redirect = safeRedirect(result.redirectUrl);
  return (
    <FormStatusScreen
      status={{ kind: "end", end: "done" }}
      onRetry={onRetry}
      action={
        redirect ? (
          <a className="cs-button cs-button--primary" href={redirect} target="_top" rel="noopener">
            {t.forms.continue}
          </a>
        ) : nextPerson ? (
          <button type="button" className="cs-button cs-button--primary" onClick={onNextPerson}>
            {t.forms.nextPerson}
          </button>
        ) : null
      }
    />
  );
}

/**
 * The form of the embed session: drafts, uploads and the submission carry the session; without a
 * network, answers, files and the submission are kept on the device (`offline`, whose `send`
 * submits through the session).
 */
export function EmbeddedFormFill({
  form,
  api,
  bridge,
  offline,
  onRejected,
  onHeld,
}: {
  form: ReadyForm;
  api: PatientApi;
  bridge: RefObject<EmbedBridge | null>;
  offline: OfflineForm<EmbedPage>;
  onRejected(error: unknown): void;
  onHeld(): void;
}) {
  const { info, template, values, draftKey, language } = form;
  return (
    <FormFill
      template={template}
      initialValues={values}
      initialLanguage={language}
      expiresAt={null}
      phoneCountry={info.phoneCountry}
      saveDraft={(changed, language) =>
        api.call("drafts.save", { draftKey, values: withoutHeldFiles(changed), language })
      }
      onDraftSaved={(at) => bridge.current?.post({ type: "draftSaved", savedAt: at.toISOString() })}
      onRejected={onRejected}
      keepsOffline
      onValuesChange={offline.keepValues}
      uploadFile={(file, field, onProgress) => offline.upload(file, field.key!, onProgress)}
      submit={async (visible, language, actionId) => {
        if ((await offline.submit(visible, language, actionId)) === "held") onHeld();
      }}
    />
  );
}
