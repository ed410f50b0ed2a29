"use client";

import type { SessionInfo } from "@clinsign/contracts";
import { useEffect, useRef, type Dispatch, type RefObject } from "react";
import { isPatientLanguage } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { isUnreached, readApiError } from "../../trpc/errors";
import { createPatientApi, type PatientApi } from "../patient/api";
import { createEmbedBridge, type EmbedBridge } from "./embed-bridge";
import {
  openedScreen,
  openingFailure,
  type EmbeddedFormAction,
  type EmbedPage,
  type Screen,
} from "./embedded-form-state";
import type { OfflineForm, OnDevice } from "./use-offline-form";
import { offersResume } from "./visitor-policy";
import { forgetVisitorSession, rememberVisitorSession, storedVisitorSession } from "./visitor-session";

/** The draft of a session that names none (drafts of such a session are its own, see forms-api.md). */
const DEFAULT_DRAFT_KEY = "embedded-form";

/** The visitor session this browser kept (an embed that offers to resume), else a new one. */
async function visitorSession(code: string): Promise<{ sessionId: string; kept: boolean }> {
  const kept = storedVisitorSession(code);
  if (kept) return { sessionId: kept, kept: true };
  const started = await createPatientApi().call("publicEmbeds.start", { code });
  rememberVisitorSession(code, started);
  return { sessionId: started.sessionId, kept: false };
}

/**
 * Connects the host page: the frame's height follows the form's own box, and the host may set the
 * language. Returns the bridge and the function that disconnects both.
 */
function connectHost(
  info: SessionInfo,
  content: HTMLElement | null,
  setLang: ReturnType<typeof usePatientI18n>["setLang"],
) {
  const host = createEmbedBridge(info.allowedOrigins);
  const stopHeight = content ? host.reportHeight(content) : () => {};
  const stopLanguage = host.onHostLanguage((next) => isPatientLanguage(next) && setLang(next));
  return {
    host,
    disconnect: () => {
      stopHeight();
      stopLanguage();
    },
  };
}

export interface EmbeddedFormOpening {
  api: PatientApi;
  sessionId: string;
  /** A public embed's code; null for a personal link. */
  publicCode: string | null;
  draftKeyParam: string | null;
  langParam: string | null;
  attempt: number;
  dispatch: Dispatch<EmbeddedFormAction>;
  startAfresh(draftKey: string | null): Promise<void>;
  bridge: RefObject<EmbedBridge | null>;
  /** The form's own box, whose height the host page's frame takes. */
  contentRef: RefObject<HTMLDivElement | null>;
  offline: OfflineForm<EmbedPage>;
}

/**
 * Opens the form through the session (a public embed first starts or finds its visitor session):
 * the template, the draft over the prefill, the host page told it is ready. A visitor session that
 * ended is replaced once; other failures end the page or offer to try again.
 */
export function useEmbeddedFormOpening(opening: EmbeddedFormOpening) {
  const {
    api,
    sessionId,
    publicCode,
    draftKeyParam,
    langParam,
    attempt,
    dispatch,
    startAfresh,
    bridge,
    contentRef,
    offline,
  } = opening;
  const { setLang } = usePatientI18n();
  const replacedVisitorSession = useRef(false);
  // Whether the visitor session came from this browser's storage (an earlier visit), not this page.
  const keptSession = useRef(false);

  useEffect(() => {
    let active = true;
    let disconnect = () => {};
    (async () => {
      if (publicCode !== null && !sessionId) {
        const started = await visitorSession(publicCode);
        keptSession.current = started.kept;
        if (active) dispatch({ type: "visitorSessionStarted", sessionId: started.sessionId });
        return;
      }
      void offline.rememberKey(api.call("forms.holdKey", undefined).then((answer) => answer.holdKey));
      // Read while the answers travel: the device's part costs the opening nothing.
      const onDevice = offline.onDevice();
      const [info, template] = await Promise.all([
        api.call("sessions.current", undefined),
        api.call("forms.template", {}),
      ]);
      const connection = connectHost(info, contentRef.current, setLang);
      bridge.current = connection.host;
      disconnect = connection.disconnect;
      // A visitor's session is its own draft's namespace; a name from the URL adds nothing there.
      const draftKey = info.draftKey ?? (publicCode === null ? draftKeyParam : null) ?? DEFAULT_DRAFT_KEY;
      const draft = await api.call("drafts.get", { draftKey });
      if (!active) return;
      dispatch({ type: "branded", branding: info.branding, organizationName: info.organizationName });
      const unfinished = draft !== null && Object.keys(draft.values).length > 0;
      // The clinic stopped offering to resume since this browser kept the session: start empty.
      if (publicCode !== null && keptSession.current && !offersResume(info.visitor)) {
        keptSession.current = false;
        if (active) await startAfresh(unfinished ? draftKey : null);
        return;
      }
      const offerResume = publicCode !== null && keptSession.current && offersResume(info.visitor);
      const screen = await withKeptAnswers(
        openedScreen({ info, template, draftKey, draft }, langParam, offerResume),
        offline,
        onDevice,
      );
      if (!active) return;
      dispatch({ type: "show", screen });
      connection.host.post({ type: "ready" });
      void api.call("forms.event", { event: "form.opened" }).catch(() => {});
    })().catch(async (error: unknown) => {
      if (!active) return;
      const code = readApiError(error).code;
      const guarded: Dispatch<EmbeddedFormAction> = (action) => {
        if (active) dispatch(action);
      };
      // No network: the form this device kept opens (or its held submission waits).
      if (isUnreached(error) && (await openKept(offline, guarded))) return;
      if (publicCode !== null && code === "UNAUTHORIZED" && !replacedVisitorSession.current) {
        // The session this browser kept has ended: start a fresh one (an empty form), once.
        replacedVisitorSession.current = true;
        forgetVisitorSession(publicCode);
        guarded({ type: "visitorSessionEnded" });
        return;
      }
      const failure = openingFailure(code, error);
      guarded({ type: "show", screen: await forgettingOnEnd(offline, failure.screen) });
      if (active) bridge.current?.post({ type: "error", code: failure.reported });
    });
    return () => {
      active = false;
      disconnect();
    };
  }, [
    api,
    sessionId,
    publicCode,
    draftKeyParam,
    langParam,
    setLang,
    attempt,
    startAfresh,
    dispatch,
    bridge,
    contentRef,
    offline,
  ]);
}

/**
 * The opened form with what this device kept over the server's draft (answers typed offline since
 * it was last saved), or its held submission's screen when one waits; the form is kept anew.
 */
async function withKeptAnswers(
  screen: Screen,
  offline: OfflineForm<EmbedPage>,
  onDevice: Promise<OnDevice<EmbedPage>>,
): Promise<Screen> {
  if (screen.kind !== "ready") return screen;
  const { template, values, language, info, draftKey } = screen;
  const opened = await offline.opened(
    { template, values, language, page: { info, draftKey } },
    info.expiresAt,
    onDevice,
  );
  return { ...screen, values: opened.form.values, kind: opened.holdsSubmission ? "held" : "ready" };
}

/** Without a network: the form this device kept (or its held submission), named as online; false when nothing was kept. */
async function openKept(offline: OfflineForm<EmbedPage>, dispatch: Dispatch<EmbeddedFormAction>): Promise<boolean> {
  const { kept, holdsSubmission } = await offline.onDevice();
  if (!kept) return false;
  const { info } = kept.page;
  dispatch({ type: "branded", branding: info.branding, organizationName: info.organizationName });
  const form = { ...kept.page, template: kept.template, values: kept.values, language: kept.language };
  dispatch({ type: "show", screen: { ...form, kind: holdsSubmission ? "held" : "ready" } });
  return true;
}

/** The session ended or is gone: what this device held for it goes, and the end says whether a submission went unsent. */
async function forgettingOnEnd(offline: OfflineForm<EmbedPage>, screen: Screen): Promise<Screen> {
  return screen.kind === "end" ? { ...screen, discarded: await offline.discard() } : screen;
}
