import type { SignedCopyState, SigningState, SigningStatus, SigningView } from "@clinsign/contracts";
import type { EndState } from "./StateScreen";

/** Which screen the signing page shows. */
export type SigningScreen =
  | { kind: "opening" }
  | { kind: "open-failed"; error: unknown }
  | { kind: "ready" }
  /** Several signers, sequential: an earlier signer has not signed yet (the page polls). */
  | { kind: "waiting" }
  /** Several signers: this signer signed, others still have to (the page polls). */
  | { kind: "signed" }
  | { kind: "confirmation"; justSigned: boolean }
  /** Signed offline: the signature waits on this device, encrypted, and is sent when the network returns. */
  | { kind: "held" }
  | { kind: "end"; state: EndState };

/** What the signing page knows and shows. */
export interface SigningFlowState {
  screen: SigningScreen;
  /** The server's preview, then what `signing.open` answered (the party as the polls update it). */
  view: SigningView | null;
  /** The signing pass: null until the link is open (or when the API issued none). */
  sessionToken: string | null;
  declineOpen: boolean;
  /** Focus follows the patient's own actions (sign, decline), not the first load. */
  acted: boolean;
  /** Bumped by "Try again": the link is opened again. */
  attempt: number;
  /** What the page last learnt about the signed copy (from open or status), shown at once. */
  copyStatus: SigningStatus | null;
  /** This device holds a signature of this link, made offline and not sent yet. */
  held: boolean;
  /** A held signature was deleted unsent: the link had closed meanwhile (the end screen says so). */
  heldDiscarded: boolean;
}

export type SigningFlowAction =
  /** A reload after the ticket was exchanged: this tab's stored view and pass. */
  | { type: "resumed"; view: SigningView; sessionToken: string }
  /** `signing.open` answered. */
  | { type: "opened"; view: SigningView; screen: SigningScreen }
  /** `signing.status` answered the resumed page (`polled`: a waiting page, whose party it also updates). */
  | { type: "status-read" | "polled"; status: SigningStatus; screen: SigningScreen | null }
  | { type: "show"; screen: SigningScreen }
  | { type: "retry" }
  /** The network returned: the link is opened again for a fresh pass, the screen stays as it is. */
  | { type: "reopen" }
  /** The link could not be opened for want of a network, while the page shows the document it had. */
  | { type: "open-offline" }
  /** This device holds a signature of the link (found at start, or just held). */
  | { type: "held" }
  /** The held signature was sent (`signed`) or deleted unsent (`discarded`, the screen then says why). */
  | { type: "held-gone"; discarded: boolean }
  /** The patient signed. */
  | { type: "signed"; screen: SigningScreen }
  /** The patient's action ended the ready screen (declined, request closed meanwhile, pass ended). */
  | { type: "closed"; screen: SigningScreen }
  | { type: "decline-dialog"; open: boolean };

export function initialSigningFlow(preview: SigningView | null): SigningFlowState {
  return {
    screen: preview ? { kind: "ready" } : { kind: "opening" },
    view: preview,
    sessionToken: null,
    declineOpen: false,
    acted: false,
    attempt: 0,
    copyStatus: null,
    held: false,
    heldDiscarded: false,
  };
}

export function signingFlowReducer(state: SigningFlowState, action: SigningFlowAction): SigningFlowState {
  switch (action.type) {
    case "resumed":
      return { ...state, view: action.view, sessionToken: action.sessionToken };
    case "opened": {
      const { view } = action;
      const copyStatus = { state: view.state, signedCopy: view.signedCopy, signedCopyUntil: view.signedCopyUntil };
      // A held signature is sent instead of asking for another one.
      const screen = state.held && action.screen.kind === "ready" ? { kind: "held" as const } : action.screen;
      return { ...state, view, sessionToken: view.sessionToken, copyStatus, screen };
    }
    case "status-read":
    case "polled": {
      const party = action.type === "polled" ? action.status.party : undefined;
      const view = party && state.view ? { ...state.view, party } : state.view;
      return { ...state, view, copyStatus: action.status, screen: action.screen ?? state.screen };
    }
    case "show":
      return { ...state, screen: action.screen };
    case "retry":
      return { ...state, screen: { kind: "opening" }, attempt: state.attempt + 1 };
    case "reopen":
      return { ...state, attempt: state.attempt + 1 };
    case "open-offline":
      // Without a document to show, the page can only say it could not open (unless a signature waits here).
      return state.screen.kind === "opening" && !state.held
        ? { ...state, screen: { kind: "open-failed", error: new Error("offline") } }
        : state;
    case "held": {
      const waiting =
        state.screen.kind === "ready" || state.screen.kind === "opening" || state.screen.kind === "open-failed";
      return { ...state, held: true, acted: true, screen: waiting ? { kind: "held" } : state.screen };
    }
    case "held-gone":
      return { ...state, held: false, heldDiscarded: action.discarded };
    case "signed":
      return { ...state, acted: true, screen: action.screen };
    case "closed":
      return { ...state, acted: true, declineOpen: false, screen: action.screen };
    case "decline-dialog":
      return { ...state, declineOpen: action.open };
  }
}

/** The screen that says the signing pass ended (opened by a ticket, a new visit goes elsewhere). */
export function sessionEndedScreen(kind: "ticket" | "token"): SigningScreen {
  return { kind: "end", state: kind === "ticket" ? "session_ended_ticket" : "session_ended" };
}

/** Where the page goes once it has opened the link (or, after a reload, asked where it stands). */
export function screenOnOpen(
  state: SigningState,
  token: string | null,
  signedCopy: SignedCopyState | null,
  kind: "ticket" | "token",
): SigningScreen {
  if (state === "ready") return token ? { kind: "ready" } : sessionEndedScreen(kind);
  if (state === "waiting") return token ? { kind: "waiting" } : sessionEndedScreen(kind);
  if (state === "signed") return { kind: "signed" };
  if (signedCopy === "expired") return { kind: "end", state: "copy_expired" };
  if ((state === "sealing" || state === "completed") && token) return { kind: "confirmation", justSigned: false };
  if (state === "sealing") return { kind: "end", state: "sealing_elsewhere" };
  if (state === "completed") return { kind: "end", state: "already_signed" };
  return { kind: "end", state };
}

/** Where a waiting (or signed, waiting for the others) page moves when the request moved on. */
export function screenOnPoll(state: SigningState): SigningScreen {
  if (state === "ready") return { kind: "ready" };
  if (state === "sealing" || state === "completed") return { kind: "confirmation", justSigned: false };
  if (state === "waiting" || state === "signed") return { kind: state };
  return { kind: "end", state };
}

/** Where the page goes when signing or declining found the request no longer open to it. */
export function screenOnClosed(state: SigningState): SigningScreen {
  return state === "ready" ? { kind: "end", state: "unknown" } : screenOnPoll(state);
}
