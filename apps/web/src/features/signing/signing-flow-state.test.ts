import { describe, expect, it } from "vitest";
import type { SigningParty, SigningView } from "@clinsign/contracts";
import {
  initialSigningFlow,
  screenOnClosed,
  screenOnOpen,
  screenOnPoll,
  signingFlowReducer,
  type SigningFlowState,
} from "./signing-flow-state";

const view = (overrides: Partial<SigningView> = {}): SigningView => ({
  state: "ready",
  sessionToken: "s".repeat(43),
  sessionExpiresAt: null,
  documentTitle: "Einwilligung",
  documentDescription: null,
  institutionId: null,
  organizationName: "Klinik Nord",
  branding: null,
  pageCount: 1,
  pageSizes: null,
  fields: null,
  expiresAt: null,
  signedCopy: null,
  signedCopyUntil: null,
  ...overrides,
});

describe("screenOnOpen", () => {
  it("signs with a pass, and says the pass ended without one", () => {
    expect(screenOnOpen("ready", "pass", null, "token")).toEqual({ kind: "ready" });
    expect(screenOnOpen("ready", null, null, "token")).toEqual({ kind: "end", state: "session_ended" });
    expect(screenOnOpen("waiting", null, null, "ticket")).toEqual({ kind: "end", state: "session_ended_ticket" });
  });

  it("offers the signed copy with a pass, and says whom to ask without one", () => {
    expect(screenOnOpen("completed", "pass", "available", "token")).toEqual({
      kind: "confirmation",
      justSigned: false,
    });
    expect(screenOnOpen("completed", "pass", "expired", "token")).toEqual({ kind: "end", state: "copy_expired" });
    expect(screenOnOpen("completed", null, null, "token")).toEqual({ kind: "end", state: "already_signed" });
    expect(screenOnOpen("sealing", null, null, "token")).toEqual({ kind: "end", state: "sealing_elsewhere" });
    expect(screenOnOpen("expired", "pass", null, "token")).toEqual({ kind: "end", state: "expired" });
  });
});

describe("screenOnPoll and screenOnClosed", () => {
  it("differ only for a request open for signing", () => {
    expect(screenOnPoll("ready")).toEqual({ kind: "ready" });
    expect(screenOnClosed("ready")).toEqual({ kind: "end", state: "unknown" });
    for (const state of ["sealing", "waiting", "signed", "declined"] as const)
      expect(screenOnClosed(state)).toEqual(screenOnPoll(state));
  });
});

describe("signingFlowReducer", () => {
  it("starts on the preview's document, or opening", () => {
    expect(initialSigningFlow(view()).screen).toEqual({ kind: "ready" });
    expect(initialSigningFlow(null).screen).toEqual({ kind: "opening" });
  });

  it("keeps the screen when a poll finds nothing new, and takes the party it reports", () => {
    const party: SigningParty = {
      order: "parallel",
      me: "6f1c1d8e-0b7a-4c44-9d3e-2f5a7b8c9d0e",
      signers: [],
      waitingFor: [],
    };
    const before: SigningFlowState = { ...initialSigningFlow(view()), screen: { kind: "waiting" } };
    const status = { state: "waiting" as const, signedCopy: null, signedCopyUntil: null };
    const after = signingFlowReducer(before, { type: "polled", status, screen: null });
    expect(after.screen).toBe(before.screen);
    expect(after.copyStatus).toBe(status);
    expect(after.view).toBe(before.view);
    const moved = signingFlowReducer(before, {
      type: "polled",
      status: { ...status, party },
      screen: { kind: "ready" },
    });
    expect(moved.view?.party).toBe(party);
    expect(moved.screen).toEqual({ kind: "ready" });
    // Read after a reload, the status leaves the stored view as it is.
    const read = signingFlowReducer(before, { type: "status-read", status: { ...status, party }, screen: null });
    expect(read.view).toBe(before.view);
  });

  it("closes the decline dialog and marks the patient's action when the screen ends", () => {
    const open = signingFlowReducer(initialSigningFlow(view()), { type: "decline-dialog", open: true });
    const ended = signingFlowReducer(open, { type: "closed", screen: { kind: "end", state: "declined" } });
    expect(ended).toMatchObject({ declineOpen: false, acted: true, screen: { kind: "end", state: "declined" } });
    const retried = signingFlowReducer(ended, { type: "retry" });
    expect(retried).toMatchObject({ attempt: 1, screen: { kind: "opening" } });
  });
});

describe("signing offline (issue 35)", () => {
  const ready = (): SigningFlowState => initialSigningFlow(view({ sessionToken: null }));

  it("keeps the document on screen when the link cannot be opened for want of a network", () => {
    expect(signingFlowReducer(ready(), { type: "open-offline" }).screen).toEqual({ kind: "ready" });
    // Without a document to show, the page says it could not open.
    const opening = initialSigningFlow(null);
    expect(signingFlowReducer(opening, { type: "open-offline" }).screen.kind).toBe("open-failed");
  });

  it("shows a held signature instead of the sign form, also when the link opens again", () => {
    const held = signingFlowReducer(ready(), { type: "held" });
    expect(held).toMatchObject({ held: true, screen: { kind: "held" } });
    const reopened = signingFlowReducer(held, { type: "reopen" });
    expect(reopened.attempt).toBe(held.attempt + 1);
    expect(reopened.screen).toEqual({ kind: "held" });
    const opened = signingFlowReducer(reopened, { type: "opened", view: view(), screen: { kind: "ready" } });
    expect(opened).toMatchObject({ screen: { kind: "held" }, sessionToken: view().sessionToken });
    // A held signature found while the page could not open replaces the failure.
    const failed = signingFlowReducer(initialSigningFlow(null), { type: "open-offline" });
    expect(signingFlowReducer(failed, { type: "held" }).screen).toEqual({ kind: "held" });
  });

  it("the link closed meanwhile: its screen, and the note that the held signature was deleted", () => {
    const held = signingFlowReducer(ready(), { type: "held" });
    const opened = signingFlowReducer(held, {
      type: "opened",
      view: view({ state: "expired", sessionToken: null }),
      screen: { kind: "end", state: "expired" },
    });
    expect(opened.screen).toEqual({ kind: "end", state: "expired" });
    expect(signingFlowReducer(opened, { type: "held-gone", discarded: true })).toMatchObject({
      held: false,
      heldDiscarded: true,
    });
  });
});
