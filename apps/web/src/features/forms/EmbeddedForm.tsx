"use client";

import type { Branding, FormValues, SessionInfo, SubmitResult, Template } from "@clinsign/contracts";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { isPatientLanguage } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { readApiError } from "../../trpc/errors";
import { createPatientApi } from "../patient/api";
import { PatientShell } from "../patient/PatientShell";
import { createEmbedBridge, type EmbedBridge } from "./embed-bridge";
import { FormFill } from "./FormFill";
import { FormStatusScreen, type FormStatus } from "./FormStatusScreen";
import { uploadFormFile } from "./uploads";
import { forgetVisitorSession, rememberVisitorSession, storedVisitorSession } from "./visitor-session";
import { offersResume, ResumePrompt, SharedDeviceNote, useIdleReset } from "./visitor-policy";

/** The draft of a session that names none (drafts of such a session are its own, see forms-api.md). */
const DEFAULT_DRAFT_KEY = "embedded-form";

interface ReadyForm {
  info: SessionInfo;
  template: Template;
  values: FormValues;
  draftKey: string;
  language: string | null;
}

type Screen =
  | FormStatus
  | ({ kind: "ready" } & ReadyForm)
  /** A public embed that offers to resume, and this browser kept an unfinished form: the visitor chooses. */
  | ({ kind: "resume"; savedAt: string; prefill: FormValues } & ReadyForm)
  | { kind: "done"; result: SubmitResult; visitor?: SessionInfo["visitor"] };

/** Only http(s) redirects are followed: a `javascript:` URL must never run on our page. */
function safeRedirect(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Opens the redirect as a top-level navigation (the whole tab, not the iframe). */
function navigateTop(url: string) {
  try {
    if (window.top && window.top !== window) window.top.location.href = url;
    else window.location.assign(url);
  } catch {
    // The browser refused a top navigation from the frame; the Continue link below still works.
  }
}

/**
 * What opens the form: a personal link's sessionId (`?session=`, made for one patient), or a
 * public embed's code (`?embed=`, on a clinic's website), from which this browser starts a
 * session of its own.
 */
export type EmbedCredential = { kind: "session"; sessionId: string } | { kind: "public"; code: string };

/** The visitor's own session of a public embed: the one this browser keeps, or a new one. */
/** The visitor session this browser kept (an embed that offers to resume), else a new one. */
async function visitorSession(code: string): Promise<{ sessionId: string; kept: boolean }> {
  const kept = storedVisitorSession(code);
  if (kept) return { sessionId: kept, kept: true };
  const started = await createPatientApi().call("publicEmbeds.start", { code });
  rememberVisitorSession(code, started);
  return { sessionId: started.sessionId, kept: false };
}

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
  const { t, lang, setLang } = usePatientI18n();
  const publicCode = credential.kind === "public" ? credential.code : null;
  const [sessionId, setSessionId] = useState(credential.kind === "session" ? credential.sessionId : "");
  const api = useMemo(() => createPatientApi({ sessionId }), [sessionId]);
  const [screen, setScreen] = useState<Screen>({ kind: "opening" });
  const [framed, setFramed] = useState(false);
  // Kept apart from the screen: the confirmation shows the same brand as the form.
  const [branding, setBranding] = useState<Branding | null>(null);
  const [organizationName, setOrganizationName] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const bridge = useRef<EmbedBridge | null>(null);
  // The form's own box, whose height the host page's frame takes (see reportHeight).
  const contentRef = useRef<HTMLDivElement>(null);
  const replacedVisitorSession = useRef(false);
  // Whether the visitor session came from this browser's storage (an earlier visit), not this page.
  const keptSession = useRef(false);

  useEffect(() => {
    setFramed(window.parent !== window);
    if (isPatientLanguage(langParam) && langParam !== lang) setLang(langParam);
    // Only the URL's own language, once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** A public embed's fresh start: the draft goes, and a new visitor session begins with an empty form. */
  const startAfresh = useCallback(
    async (draftKey: string | null) => {
      if (publicCode === null) return;
      if (draftKey) await api.call("drafts.delete", { draftKey }).catch(() => {});
      forgetVisitorSession(publicCode);
      setScreen({ kind: "opening" });
      setSessionId("");
    },
    [api, publicCode],
  );

  useEffect(() => {
    let active = true;
    let stopHeight = () => {};
    let stopLanguage = () => {};
    (async () => {
      if (publicCode !== null && !sessionId) {
        const started = await visitorSession(publicCode);
        keptSession.current = started.kept;
        if (active) setSessionId(started.sessionId);
        return;
      }
      const [info, template] = await Promise.all([
        api.call("sessions.current", undefined),
        api.call("forms.template", {}),
      ]);
      const host = createEmbedBridge(info.allowedOrigins);
      bridge.current = host;
      if (contentRef.current) stopHeight = host.reportHeight(contentRef.current);
      stopLanguage = host.onHostLanguage((next) => isPatientLanguage(next) && setLang(next));
      // A visitor's session is its own draft's namespace; a name from the URL adds nothing there.
      const draftKey = info.draftKey ?? (publicCode === null ? draftKeyParam : null) ?? DEFAULT_DRAFT_KEY;
      const draft = await api.call("drafts.get", { draftKey });
      if (!active) return;
      setBranding(info.branding);
      setOrganizationName(info.organizationName);
      const unfinished = draft !== null && Object.keys(draft.values).length > 0;
      // The clinic stopped offering to resume since this browser kept the session: start empty.
      if (publicCode !== null && keptSession.current && !offersResume(info.visitor)) {
        keptSession.current = false;
        if (active) await startAfresh(unfinished ? draftKey : null);
        return;
      }
      const form: ReadyForm = {
        info,
        template,
        draftKey,
        values: { ...info.prefill, ...(draft?.values ?? {}) },
        // The patient's own choice (kept with the draft) over the session's preset, over the URL's.
        language: draft?.language ?? info.language ?? (isPatientLanguage(langParam) ? langParam : null),
      };
      if (publicCode !== null && keptSession.current && offersResume(info.visitor) && unfinished)
        setScreen({ kind: "resume", ...form, savedAt: draft.updatedAt, prefill: info.prefill });
      else setScreen({ kind: "ready", ...form });
      host.post({ type: "ready" });
      void api.call("forms.event", { event: "form.opened" }).catch(() => {});
    })().catch((error: unknown) => {
      if (!active) return;
      const code = readApiError(error).code;
      if (publicCode !== null && code === "UNAUTHORIZED" && !replacedVisitorSession.current) {
        // The session this browser kept has ended: start a fresh one (an empty form), once.
        replacedVisitorSession.current = true;
        forgetVisitorSession(publicCode);
        setSessionId("");
        return;
      }
      const kind =
        code === "UNAUTHORIZED"
          ? "session_ended"
          : code === "NOT_FOUND" || code === "FORBIDDEN"
            ? "unavailable"
            : "failed";
      setScreen(kind === "failed" ? { kind, error } : { kind: "end", end: kind });
      bridge.current?.post({ type: "error", code: kind === "failed" ? "load_failed" : kind });
    });
    return () => {
      active = false;
      stopHeight();
      stopLanguage();
    };
  }, [api, sessionId, publicCode, draftKeyParam, langParam, setLang, attempt, startAfresh]);

  // form.closed when the page is left: a keepalive request outlives the page, and carries the
  // session header that sendBeacon cannot.
  useEffect(() => {
    if (screen.kind !== "ready") return;
    const closed = () => {
      bridge.current?.post({ type: "closed" });
      void fetch("/trpc/forms.event", {
        method: "POST",
        keepalive: true,
        headers: { "content-type": "application/json", "x-session-id": sessionId },
        body: JSON.stringify({ event: "form.closed" }),
      }).catch(() => {});
    };
    window.addEventListener("pagehide", closed);
    return () => window.removeEventListener("pagehide", closed);
  }, [screen.kind, sessionId]);

  const onRejected = (error: unknown) => {
    const code = readApiError(error).code;
    if (publicCode !== null && code === "UNAUTHORIZED") forgetVisitorSession(publicCode);
    const end = code === "UNAUTHORIZED" ? "session_ended" : "unavailable";
    setScreen({ kind: "end", end });
    bridge.current?.post({ type: "error", code: end });
  };

  const retry = () => (setScreen({ kind: "opening" }), setAttempt((n) => n + 1));

  const visitor = screen.kind === "ready" || screen.kind === "resume" ? screen.info.visitor : undefined;
  const sharedDevice = publicCode !== null && visitor?.mode === "shared_device";
  const idle = useIdleReset(sharedDevice && screen.kind === "ready", visitor?.idleMinutes ?? 5, () =>
    startAfresh(screen.kind === "ready" ? screen.draftKey : null),
  );

  let content;
  switch (screen.kind) {
    case "done": {
      const redirect = safeRedirect(screen.result.redirectUrl);
      content = (
        <FormStatusScreen
          status={{ kind: "end", end: "done" }}
          onRetry={retry}
          action={
            redirect ? (
              <a className="cs-button cs-button--primary" href={redirect} target="_top" rel="noopener">
                {t.forms.continue}
              </a>
            ) : publicCode !== null && screen.visitor?.mode === "shared_device" ? (
              <button type="button" className="cs-button cs-button--primary" onClick={() => void startAfresh(null)}>
                {t.forms.nextPerson}
              </button>
            ) : null
          }
        />
      );
      break;
    }
    case "resume": {
      const form = screen;
      content = (
        <ResumePrompt
          formTitle={form.template.title}
          savedAt={form.savedAt}
          onContinue={() => setScreen({ ...form, kind: "ready" })}
          onStartOver={() => {
            void api.call("drafts.delete", { draftKey: form.draftKey }).catch(() => {});
            setScreen({ ...form, kind: "ready", values: form.prefill });
          }}
        />
      );
      break;
    }
    case "ready": {
      const { info, template, values, draftKey, language } = screen;
      content = (
        <>
          {sharedDevice ? <SharedDeviceNote minutes={info.visitor!.idleMinutes} cleared={idle.cleared} /> : null}
          <FormFill
            template={template}
            initialValues={values}
            initialLanguage={language}
            expiresAt={null}
            phoneCountry={info.phoneCountry}
            saveDraft={(changed, language) => api.call("drafts.save", { draftKey, values: changed, language })}
            onDraftSaved={(at) => bridge.current?.post({ type: "draftSaved", savedAt: at.toISOString() })}
            onRejected={onRejected}
            uploadFile={(file, field, onProgress) =>
              uploadFormFile(file, {
                url: "/api/embed/uploads",
                headers: { "x-session-id": sessionId },
                fields: { sessionId },
                fieldKey: field.key!,
                onProgress,
              })
            }
            submit={async (visible, language) => {
              const result = await api.call("submissions.submit", { values: visible, draftKey, language });
              // The next person on this device (a waiting-room tablet) starts with an empty form.
              if (publicCode !== null) forgetVisitorSession(publicCode);
              setScreen({ kind: "done", result, visitor: info.visitor });
              idle.forget();
              bridge.current?.post({ type: "submitted", submissionId: result.submissionId });
              const redirect = safeRedirect(result.redirectUrl ?? info.redirectUrl);
              if (redirect) navigateTop(redirect);
            }}
          />
        </>
      );
      break;
    }
    default:
      content = <FormStatusScreen status={screen} onRetry={retry} />;
  }

  return (
    <div ref={contentRef}>
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
