"use client";

import type { FormValues, Template } from "@clinsign/contracts";
import { useEffect, useMemo, useReducer, useRef, type Dispatch } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { isUnreached, readApiError } from "../../trpc/errors";
import { createPatientApi, type PatientApi } from "../patient/api";
import { PatientShell } from "../patient/PatientShell";
import { FormFill } from "./FormFill";
import { FormStatusScreen } from "./FormStatusScreen";
import {
  endFor,
  initialSmsFormState,
  type End,
  smsFormReducer,
  type OpenedLink,
  type SmsFormAction,
  type SmsFormState,
  type SmsPage,
  type Step,
} from "./sms-form-state";
import { IdentifyStep, OtpStep } from "./SmsFormSteps";
import { uploadLinkFile } from "./uploads";
import { useOfflineForm, withoutHeldFiles, type OfflineForm } from "./use-offline-form";

/**
 * The SMS link's form offline (useOfflineForm): kept under its link, a held submission sent with
 * the access cookie when the network returns; answers refused bring the form back; an access that
 * ran out or a link that closed meanwhile opens the link again, which says which.
 */
function useLinkOffline(
  api: PatientApi,
  linkToken: string,
  { step, link }: Pick<SmsFormState, "step" | "link">,
  dispatch: Dispatch<SmsFormAction>,
) {
  const show = (next: Step) => dispatch({ type: "show", step: next });
  const offline = useOfflineForm<SmsPage>({
    credential: `sms:${linkToken}`,
    until: link.expiresAt,
    sending: step.kind === "held",
    send: async (values, language) => {
      await api.call("smsForm.submit", { linkToken, values, language });
      return () => {
        dispatch({ type: "acted" });
        show({ kind: "end", end: "done" });
      };
    },
    sendFile: (file, fieldKey, onProgress) => uploadLinkFile(linkToken, file, fieldKey, onProgress),
    onRefused: (error, held) => {
      if (held && !endFor(error) && readApiError(error).code !== "UNAUTHORIZED") {
        // The answers were refused (a file the device kept could not be sent): the form again, to mend.
        void offline.keptForm().then((kept) =>
          kept
            ? show({
                kind: "form",
                template: kept.template,
                values: withoutHeldFiles(held.values),
                language: held.language,
              })
            : dispatch({ type: "retry" }),
        );
      } else {
        // The access ran out or the link closed meanwhile: the link is opened again and says which
        // (identified again, the held form is sent; closed, what was held goes and the page says so).
        dispatch({ type: "retry" });
      }
    },
  });
  return offline;
}

/** The link ended: what this device held for it goes, and the end says so when it went unsent. */
async function endOf(offline: OfflineForm<SmsPage>, end: End): Promise<Step> {
  const unsent = await offline.discard();
  // A link answered meanwhile took what was held (its first try reached the server).
  return { kind: "end", end, discarded: unsent && end !== "submitted" };
}

/** Links are 43 URL-safe characters; anything else cannot be one. */
const plausibleLink = (token: string) => /^[A-Za-z0-9_-]{16,200}$/.test(token);

/**
 * `/f/<token>`, the link of an SMS form request: the recipient confirms case number and mobile
 * number (a wrong pair says how many tries remain; the fifth locks the link), enters the code
 * from a second SMS when the organization asks for it, fills in the form with the shared
 * renderer and autosave, and submits. The access lives in an HTTP-only cookie, so a reload
 * continues with the form.
 */
export function SmsForm({ linkToken }: { linkToken: string }) {
  const { t, locale } = usePatientI18n();
  const api = useMemo(() => createPatientApi({ url: "/f/trpc" }), []);
  const [{ step, link, attempt, acted }, dispatch] = useReducer(smsFormReducer, initialSmsFormState);
  const show = (next: Step) => dispatch({ type: "show", step: next });
  const offline = useLinkOffline(api, linkToken, { step, link }, dispatch);
  const openForm = useLinkOpening(api, linkToken, attempt, dispatch, offline);
  const calls = identificationCalls(api, linkToken, dispatch, openForm);
  const s = t.forms.sms;

  /** A refusal after the start: the end screen it means, or the identification again. */
  const refused = (error: unknown) => {
    dispatch({ type: "acted" });
    const end = endFor(error);
    if (end) void endOf(offline, end === "unknown" ? "unavailable" : end).then(show);
    else show({ kind: "identify", notice: s.accessEnded });
  };
  const ended = (end: End) => void endOf(offline, end).then(show);

  let content;
  switch (step.kind) {
    case "identify":
      content = (
        <IdentifyStep
          notice={step.notice}
          deadline={link.expiresAt ? format(t.forms.expiresAt, { date: formatDateTime(link.expiresAt, locale) }) : null}
          focus={acted}
          verify={calls.verify}
          onEnd={ended}
        />
      );
      break;
    case "otp":
      content = (
        <OtpStep
          sentAt={step.sentAt}
          check={calls.checkOtp}
          resend={calls.resendOtp}
          onEnd={ended}
          onIdentifyAgain={() => show({ kind: "identify", notice: s.accessEnded })}
        />
      );
      break;
    case "form":
      content = (
        <LinkFormFill
          api={api}
          linkToken={linkToken}
          form={step}
          link={link}
          offline={offline}
          onRejected={refused}
          onHeld={() => show({ kind: "held" })}
        />
      );
      break;
    default:
      content = (
        <FormStatusScreen
          status={step}
          onRetry={() => dispatch({ type: "retry" })}
          organizationName={link.organizationName}
          focus={acted}
        />
      );
  }

  return (
    <PatientShell branding={link.branding} organizationName={link.organizationName} footer={t.patient.formsFooter}>
      {content}
    </PatientShell>
  );
}

/**
 * Opens the link (again on each `attempt`): the end it already reached, the identification, or,
 * with access from an earlier visit (the cookie), the form. Returns `openForm`, which loads the
 * template and the draft and shows the form.
 */
function useLinkOpening(
  api: PatientApi,
  linkToken: string,
  attempt: number,
  dispatch: Dispatch<SmsFormAction>,
  offline: OfflineForm<SmsPage>,
) {
  // The language the request was sent in: the form opens in it unless the draft remembers another.
  const presetLanguage = useRef<string | null>(null);
  const opened = useRef<OpenedLink>(initialSmsFormState.link);

  /** The form, with what this device kept over the server's draft; its held submission's screen when one waits. */
  async function openForm() {
    void offline.rememberKey(api.call("smsForm.holdKey", { linkToken }).then((answer) => answer.holdKey));
    // Read while the answers travel: the device's part costs the opening nothing.
    const onDevice = offline.onDevice();
    const [template, draft] = await Promise.all([
      api.call("smsForm.template", { linkToken }),
      api.call("smsForm.loadDraft", { linkToken }),
    ]);
    const fromServer = {
      template,
      values: draft?.values ?? {},
      language: draft?.language ?? presetLanguage.current,
      page: { link: opened.current },
    };
    const { form, holdsSubmission } = await offline.opened(fromServer, opened.current.expiresAt, onDevice);
    const { values, language } = form;
    dispatch({ type: "show", step: holdsSubmission ? { kind: "held" } : { kind: "form", template, values, language } });
  }

  /** Without a network: the form this device kept (or its held submission); false when nothing was kept. */
  async function openKept(): Promise<boolean> {
    const { kept, holdsSubmission } = await offline.onDevice();
    if (!kept) return false;
    dispatch({ type: "linkOpened", link: kept.page.link });
    const { template, values, language } = kept;
    dispatch({ type: "show", step: holdsSubmission ? { kind: "held" } : { kind: "form", template, values, language } });
    return true;
  }

  useEffect(() => {
    const show = (step: Step) => dispatch({ type: "show", step });
    if (!plausibleLink(linkToken)) {
      show({ kind: "end", end: "unknown" });
      return;
    }
    let active = true;
    api
      .call("smsForm.open", { linkToken })
      .then(async (answer) => {
        if (!active) return;
        const { organizationName, branding, expiresAt, phoneCountry, status } = answer;
        opened.current = { organizationName, branding, expiresAt, phoneCountry };
        dispatch({ type: "linkOpened", link: opened.current });
        presetLanguage.current = answer.language ?? null;
        if (status === "expired" || status === "locked" || status === "submitted") show(await endOf(offline, status));
        else if (answer.hasAccess) await openForm();
        else show({ kind: "identify" });
      })
      .catch(async (error: unknown) => {
        if (!active || (isUnreached(error) && (await openKept()))) return;
        const end = endFor(error);
        const step: Step = end ? await endOf(offline, end) : { kind: "failed", error };
        if (active) show(step);
      });
    return () => {
      active = false;
    };
    // openForm only reads stable values.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, linkToken, attempt]);

  return openForm;
}

/** The calls of the identification steps, each going on to the step it leads to. */
function identificationCalls(
  api: PatientApi,
  linkToken: string,
  dispatch: Dispatch<SmsFormAction>,
  openForm: () => Promise<void>,
) {
  const show = (step: Step) => dispatch({ type: "show", step });
  return {
    async verify(rnummer: string, phone: string) {
      dispatch({ type: "acted" });
      const answer = await api.call("smsForm.verify", { linkToken, rnummer, phone });
      if (answer.otpRequired) show({ kind: "otp", sentAt: Date.now() });
      else await openForm();
    },
    async checkOtp(code: string) {
      await api.call("smsForm.checkOtp", { linkToken, code });
      await openForm();
    },
    async resendOtp() {
      await api.call("smsForm.resendOtp", { linkToken });
      show({ kind: "otp", sentAt: Date.now() });
    },
  };
}

/** The form of the link: drafts, uploads and the submission go through the link's own calls. */
function LinkFormFill({
  api,
  linkToken,
  form,
  link,
  offline,
  onRejected,
  onHeld,
}: {
  api: PatientApi;
  linkToken: string;
  form: { template: Template; values: FormValues; language: string | null };
  link: OpenedLink;
  offline: OfflineForm<SmsPage>;
  onRejected(error: unknown): void;
  onHeld(): void;
}) {
  return (
    <FormFill
      template={form.template}
      initialValues={form.values}
      initialLanguage={form.language}
      expiresAt={link.expiresAt}
      phoneCountry={link.phoneCountry}
      saveDraft={(values, language) =>
        api.call("smsForm.saveDraft", { linkToken, values: withoutHeldFiles(values), language })
      }
      onRejected={onRejected}
      keepsOffline
      onValuesChange={offline.keepValues}
      uploadFile={(file, field, onProgress) => offline.upload(file, field.key!, onProgress)}
      submit={async (values, language) => {
        if ((await offline.submit(values, language, undefined)) === "held") onHeld();
      }}
    />
  );
}
