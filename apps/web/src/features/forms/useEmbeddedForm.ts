"use client";

import type { SessionInfo, SubmitResult } from "@clinsign/contracts";
import { useCallback, useEffect, useMemo, useReducer, useRef, type Dispatch, type RefObject } from "react";
import { readApiError } from "../../trpc/errors";
import { createPatientApi, type PatientApi } from "../patient/api";
import type { EmbedBridge } from "./embed-bridge";
import { navigateTop, safeRedirect } from "./embed-redirect";
import {
  embeddedFormReducer,
  initialEmbeddedFormState,
  type EmbedCredential,
  type EmbeddedFormAction,
  type EmbeddedFormState,
  type EmbedPage,
  type ReadyForm,
  type ResumeScreen,
} from "./embedded-form-state";
import { useEmbeddedFormOpening } from "./useEmbeddedFormOpening";
import { uploadEmbedFile } from "./uploads";
import { useOfflineForm, withoutHeldFiles, type OfflineForm } from "./use-offline-form";
import { useIdleReset } from "./visitor-policy";
import { forgetVisitorSession } from "./visitor-session";

/**
 * form.closed when the page is left (while the form is shown): a keepalive request outlives the
 * page, and carries the session header that sendBeacon cannot.
 */
function useFormClosedReport(ready: boolean, sessionId: string, bridge: RefObject<EmbedBridge | null>) {
  useEffect(() => {
    if (!ready) return;
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
  }, [ready, sessionId, bridge]);
}

/** A refusal that ends the session's form (it ended, or is gone), rather than one of its answers. */
const closesSession = (error: unknown) =>
  ["UNAUTHORIZED", "NOT_FOUND", "FORBIDDEN"].includes(readApiError(error).code ?? "");

/**
 * The visitor's answer to "Continue where you left off?": the kept draft, or an empty form; either
 * is then kept on the device like any opened form (for a reload without network).
 */
function resumeChoices(api: PatientApi, dispatch: Dispatch<EmbeddedFormAction>, offline: OfflineForm<EmbedPage>) {
  const show = (form: ReadyForm) => {
    const { template, values, language, info, draftKey } = form;
    void offline.keep({ template, values, language, page: { info, draftKey } }, info.expiresAt);
    dispatch({ type: "show", screen: { ...form, kind: "ready" } });
  };
  return {
    continue: (form: ResumeScreen) => show(form),
    startOver: (form: ResumeScreen) => {
      void api.call("drafts.delete", { draftKey: form.draftKey }).catch(() => {});
      show({ ...form, values: form.prefill });
    },
  };
}

/**
 * The embedded form offline (useOfflineForm): kept under its session, a held submission sent
 * through it when the network returns; answers refused bring the form back, a session that ended
 * ends the page (`onRejected`, what was held discarded).
 */
function useEmbedOffline({
  api,
  state,
  dispatch,
  onSubmitted,
  onRejected,
}: {
  api: PatientApi;
  state: EmbeddedFormState;
  dispatch: Dispatch<EmbeddedFormAction>;
  onSubmitted(result: SubmitResult, info: SessionInfo): void;
  onRejected(error: unknown): void;
}) {
  const { sessionId, screen } = state;
  // The form shown, or the one a held submission came from.
  const form: ReadyForm | null =
    (screen.kind === "ready" || screen.kind === "held") && "info" in screen ? screen : null;
  return useOfflineForm<EmbedPage>({
    credential: sessionId ? `embed:${sessionId}` : null,
    until: form?.info.expiresAt ?? null,
    sending: screen.kind === "held",
    send: async (values, language, actionId) => {
      if (!form) return () => {};
      const result = await api.call("submissions.submit", { values, draftKey: form.draftKey, language, actionId });
      return () => onSubmitted(result, form.info);
    },
    sendFile: (file, fieldKey, onProgress) => uploadEmbedFile(sessionId, file, fieldKey, onProgress),
    onRefused: (error, held) => {
      if (form && held && !closesSession(error)) {
        // The answers were refused (a file the device kept could not be sent): the form again, to mend.
        dispatch({ type: "show", screen: { ...form, kind: "ready", values: withoutHeldFiles(held.values) } });
      } else if (form && !held) dispatch({ type: "retry" });
      else onRejected(error);
    },
  });
}

/**
 * The embedded form's state and calls: the session and the screen (see embeddedFormReducer), the
 * opening, the host page's bridge, a shared device's idle reset, and what a refusal, a resumed
 * draft and a submission do.
 */
export function useEmbeddedForm({
  credential,
  draftKeyParam,
  langParam,
}: {
  credential: EmbedCredential;
  draftKeyParam: string | null;
  langParam: string | null;
}) {
  const publicCode = credential.kind === "public" ? credential.code : null;
  const initialSessionId = credential.kind === "session" ? credential.sessionId : "";
  const [state, dispatch] = useReducer(embeddedFormReducer, initialSessionId, initialEmbeddedFormState);
  const { sessionId, screen, attempt } = state;
  const api = useMemo(() => createPatientApi({ sessionId }), [sessionId]);
  const bridge = useRef<EmbedBridge | null>(null);
  // The form's own box, whose height the host page's frame takes (see reportHeight).
  const contentRef = useRef<HTMLDivElement>(null);

  const offline = useEmbedOffline({
    api,
    state,
    dispatch,
    onSubmitted: (result, info) => submitted(result, info),
    onRejected: (error) => void onRejected(error),
  });

  /** A public embed's fresh start: the draft goes, and a new visitor session begins with an empty form. */
  const startAfresh = useCallback(
    async (draftKey: string | null) => {
      if (publicCode === null) return;
      if (draftKey) await api.call("drafts.delete", { draftKey }).catch(() => {});
      // The next person on this device finds nothing of this one's.
      await offline.forget();
      forgetVisitorSession(publicCode);
      dispatch({ type: "startedAfresh" });
    },
    [api, publicCode, offline],
  );

  const opening = { api, sessionId, publicCode, draftKeyParam, langParam, attempt, dispatch, startAfresh, offline };
  useEmbeddedFormOpening({ ...opening, bridge, contentRef });
  useFormClosedReport(screen.kind === "ready", sessionId, bridge);

  const visitor = screen.kind === "ready" || screen.kind === "resume" ? screen.info.visitor : undefined;
  const sharedDevice = publicCode !== null && visitor?.mode === "shared_device";
  const idle = useIdleReset(sharedDevice && screen.kind === "ready", visitor?.idleMinutes ?? 5, () =>
    startAfresh(screen.kind === "ready" ? screen.draftKey : null),
  );

  /** The session refused the form for good: the page ends, and says so when a held submission went unsent. */
  async function onRejected(error: unknown) {
    const code = readApiError(error).code;
    if (publicCode !== null && code === "UNAUTHORIZED") forgetVisitorSession(publicCode);
    const end = code === "UNAUTHORIZED" ? "session_ended" : "unavailable";
    bridge.current?.post({ type: "error", code: end });
    dispatch({ type: "show", screen: { kind: "end", end, discarded: await offline.discard() } });
  }

  function submitted(result: SubmitResult, info: SessionInfo) {
    // The next person on this device (a waiting-room tablet) starts with an empty form.
    if (publicCode !== null) forgetVisitorSession(publicCode);
    dispatch({ type: "show", screen: { kind: "done", result, visitor: info.visitor } });
    idle.forget();
    bridge.current?.post({ type: "submitted", submissionId: result.submissionId });
    const redirect = safeRedirect(result.redirectUrl ?? info.redirectUrl);
    if (redirect) navigateTop(redirect);
  }

  const resume = resumeChoices(api, dispatch, offline);

  const retry = () => dispatch({ type: "retry" });
  /** Submitted offline: the submission waits on this device. */
  const held = (form: ReadyForm) => dispatch({ type: "show", screen: { ...form, kind: "held" } });
  return {
    state,
    api,
    publicCode,
    sharedDevice,
    idle,
    bridge,
    contentRef,
    startAfresh,
    onRejected,
    offline,
    held,
    resume,
    retry,
  };
}
