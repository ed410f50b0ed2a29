"use client";

import { usePatientI18n } from "../../i18n/I18nProvider";
import { PatientShell } from "../patient/PatientShell";
import type { EmbedCredential } from "./embedded-form-state";
import { EmbeddedFormDone, EmbeddedFormFill, useFramedPage } from "./EmbeddedFormScreens";
import { FormStatusScreen } from "./FormStatusScreen";
import { useEmbeddedForm } from "./useEmbeddedForm";
import { ResumePrompt, SharedDeviceNote } from "./visitor-policy";

export type { EmbedCredential } from "./embedded-form-state";

/**
 * `/embed/<identifier>?session=…` or `?embed=…`: the form an external site embeds. It loads the
 * template through the session, restores the draft (prefill underneath), saves as the patient
 * types, reports to the host page, and submits through F10.
 */
export function EmbeddedForm({
  credential,
  draftKeyParam,
  langParam,
}: {
  credential: EmbedCredential;
  draftKeyParam: string | null;
  langParam: string | null;
}) {
  const { t } = usePatientI18n();
  const framed = useFramedPage(langParam);
  const embedded = useEmbeddedForm({ credential, draftKeyParam, langParam });
  const { screen, branding, organizationName } = embedded.state;

  let content;
  switch (screen.kind) {
    case "done":
      content = (
        <EmbeddedFormDone
          result={screen.result}
          nextPerson={embedded.publicCode !== null && screen.visitor?.mode === "shared_device"}
          onRetry={embedded.retry}
          onNextPerson={() => void embedded.startAfresh(null)}
        />
      );
      break;
    case "resume": {
      const form = screen;
      content = (
        <ResumePrompt
          formTitle={form.template.title}
          savedAt={form.savedAt}
          onContinue={() => embedded.resume.continue(form)}
          onStartOver={() => embedded.resume.startOver(form)}
        />
      );
      break;
    }
    case "ready":
      content = (
        <>
          {embedded.sharedDevice ? (
            <SharedDeviceNote minutes={screen.info.visitor!.idleMinutes} cleared={embedded.idle.cleared} />
          ) : null}
          <EmbeddedFormFill
            form={screen}
            api={embedded.api}
            bridge={embedded.bridge}
            onRejected={(error) => void embedded.onRejected(error)}
            offline={embedded.offline}
            onHeld={() => embedded.held(screen)}
          />
        </>
      );
      break;
    default:
      content = <FormStatusScreen status={screen} onRetry={embedded.retry} />;
  }

  return (
    <div ref={embedded.contentRef}>
      <PatientShell
        branding={branding}
        organizationName={organizationName}
        compact={framed}
        footer={t.patient.formsFooter}
      >
        {content}
      </PatientShell>
    </div>
  );
}
