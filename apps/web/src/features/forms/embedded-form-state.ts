import type { Branding, Draft, FormValues, SessionInfo, SubmitResult, Template } from "@clinsign/contracts";
import { isPatientLanguage } from "../../i18n";
import type { EmbedEvent } from "./embed-bridge";
import type { FormStatus } from "./FormStatusScreen";

/**
 * What opens the form: a personal link's sessionId (`?session=`, made for one patient), or a
 * public embed's code (`?embed=`, on a clinic's website), from which this browser starts a
 * session of its own.
 */
export type EmbedCredential = { kind: "session"; sessionId: string } | { kind: "public"; code: string };

export interface ReadyForm {
  info: SessionInfo;
  template: Template;
  values: FormValues;
  draftKey: string;
  language: string | null;
}

export type Screen =
  | FormStatus
  | ({ kind: "ready" } & ReadyForm)
  /** A public embed that offers to resume, and this browser kept an unfinished form: the visitor chooses. */
  | ({ kind: "resume"; savedAt: string; prefill: FormValues } & ReadyForm)
  /** Submitted offline: the submission waits on this device; the form it came from is kept for a refusal. */
  | ({ kind: "held" } & ReadyForm)
  | { kind: "done"; result: SubmitResult; visitor?: SessionInfo["visitor"] };

export type ResumeScreen = Extract<Screen, { kind: "resume" }>;

/** What the embedded form keeps of its session on the device with the opened form (see useOfflineForm). */
export interface EmbedPage {
  info: SessionInfo;
  draftKey: string;
}

export interface EmbeddedFormState {
  /** The embed session every call carries; empty while a public embed's visitor session starts. */
  sessionId: string;
  screen: Screen;
  // Kept apart from the screen: the confirmation shows the same brand as the form.
  branding: Branding | null;
  organizationName: string | null;
  /** Bumped by "Try again": the form is opened again. */
  attempt: number;
}

export type EmbeddedFormAction =
  /** A public embed's visitor session: the one this browser kept, or a new one. */
  | { type: "visitorSessionStarted"; sessionId: string }
  /** The visitor session this browser kept has ended: a new one starts. */
  | { type: "visitorSessionEnded" }
  /** A public embed starts again with an empty form and a new visitor session. */
  | { type: "startedAfresh" }
  | { type: "branded"; branding: Branding | null; organizationName: string | null }
  | { type: "show"; screen: Screen }
  | { type: "retry" };

export const initialEmbeddedFormState = (sessionId: string): EmbeddedFormState => ({
  sessionId,
  screen: { kind: "opening" },
  branding: null,
  organizationName: null,
  attempt: 0,
});

export function embeddedFormReducer(state: EmbeddedFormState, action: EmbeddedFormAction): EmbeddedFormState {
  switch (action.type) {
    case "visitorSessionStarted":
      return { ...state, sessionId: action.sessionId };
    case "visitorSessionEnded":
      return { ...state, sessionId: "" };
    case "startedAfresh":
      return { ...state, screen: { kind: "opening" }, sessionId: "" };
    case "branded":
      return { ...state, branding: action.branding, organizationName: action.organizationName };
    case "show":
      return { ...state, screen: action.screen };
    case "retry":
      return { ...state, screen: { kind: "opening" }, attempt: state.attempt + 1 };
  }
}

/**
 * The screen the form opens on: the draft over the prefill, in the language chosen, or first the
 * question whether to resume (`offerResume`: a public embed that offers it, with a session this
 * browser kept).
 */
export function openedScreen(
  opened: { info: SessionInfo; template: Template; draftKey: string; draft: Draft | null },
  langParam: string | null,
  offerResume: boolean,
): Screen {
  const { info, template, draftKey, draft } = opened;
  const form: ReadyForm = {
    info,
    template,
    draftKey,
    values: { ...info.prefill, ...(draft?.values ?? {}) },
    // The patient's own choice (kept with the draft) over the session's preset, over the URL's.
    language: draft?.language ?? info.language ?? (isPatientLanguage(langParam) ? langParam : null),
  };
  if (offerResume && draft !== null && Object.keys(draft.values).length > 0)
    return { kind: "resume", ...form, savedAt: draft.updatedAt, prefill: info.prefill };
  return { kind: "ready", ...form };
}

/** Where a failure to open leaves the page, and the code the host page hears. */
export function openingFailure(
  code: string | undefined,
  error: unknown,
): { screen: Screen; reported: Extract<EmbedEvent, { type: "error" }>["code"] } {
  const kind =
    code === "UNAUTHORIZED" ? "session_ended" : code === "NOT_FOUND" || code === "FORBIDDEN" ? "unavailable" : "failed";
  return kind === "failed"
    ? { screen: { kind, error }, reported: "load_failed" }
    : { screen: { kind: "end", end: kind }, reported: kind };
}
