"use client";

import type { SigningView } from "@clinsign/contracts";
import { useEffect, useEffectEvent, useRef, type Dispatch } from "react";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { useTRPCClient } from "../../trpc/client";
import { isUnauthorized, isUnreached } from "../../trpc/errors";
import { forgetOpenCall, loadStoredSigning, openOnce, storeSigning, type SigningCredential } from "./session";
import {
  screenOnOpen,
  screenOnPoll,
  sessionEndedScreen,
  type SigningFlowAction,
  type SigningScreen,
} from "./signing-flow-state";

/** How often a waiting signer's page asks whether it is their turn (and a signer who signed, whether it is sealed). */
const PARTY_POLL_MS = 4_000;

/** What signing at the desk (features/kiosk) learns from the flow. */
export interface KioskHooks {
  /** The page knows whose page it is: the organization's name and branding (no patient data). */
  onBranding(organizationName: string | null, branding: SigningView["branding"]): void;
  /** Signed, declined, or any screen that ends the flow: the desk locks the device. */
  onFinished(outcome: "signed" | "declined" | "ended" | "held"): void;
}

/**
 * Opens the link (or exchanges the A4 ticket, once; after a reload, continues with this tab's
 * pass) whenever the credential changes or `attempt` is bumped, and says where the page stands.
 */
export function useOpenSigning(
  kind: "ticket" | "token",
  secret: string,
  plausible: boolean,
  attempt: number,
  dispatch: Dispatch<SigningFlowAction>,
) {
  const client = useTRPCClient();
  const { lang } = usePatientI18n();
  // The page's language picks the document when the request has one per language (issue 19);
  // the first open pins it, so a later switch of language keeps the same document (and does not
  // open again: that would show the first answer's state over the current one).
  const openLink = useEffectEvent((current: SigningCredential) =>
    openOnce(current, (c) => client.signing.open.mutate({ ...c, language: lang })),
  );

  useEffect(() => {
    if (!plausible) return;
    let active = true;
    const current: SigningCredential = kind === "ticket" ? { ticket: secret } : { token: secret };
    const stored = loadStoredSigning(current);

    if (kind === "ticket" && stored) {
      // A reload after the ticket was exchanged: continue with this tab's session.
      dispatch({ type: "resumed", view: stored.view, sessionToken: stored.sessionToken });
      client.signing.status
        .query({ sessionToken: stored.sessionToken })
        .then((result) => {
          if (!active) return;
          const screen = screenOnOpen(result.state, stored.sessionToken, result.signedCopy, kind);
          dispatch({ type: "status-read", status: result, screen });
        })
        .catch((error: unknown) => {
          if (!active) return;
          // Without a network the tab's own copy of the view stands (signing is then held on the device).
          const screen = isUnauthorized(error)
            ? sessionEndedScreen(kind)
            : isUnreached(error)
              ? screenOnOpen(stored.view.state, stored.sessionToken, stored.view.signedCopy, kind)
              : { kind: "open-failed" as const, error };
          dispatch({ type: "show", screen });
        });
      return () => {
        active = false;
      };
    }

    // Opened again (the network returned, the pass ended): a signing link gives a fresh pass.
    if (attempt > 0 && kind === "token") forgetOpenCall(current);
    openLink(current)
      .then((opened) => {
        if (!active) return;
        const token = opened.sessionToken;
        // The hold key stays out of the tab's storage: the device keeps it as a key it cannot give out.
        if (token) storeSigning(current, { view: { ...opened, holdKey: null }, sessionToken: token });
        dispatch({ type: "opened", view: opened, screen: screenOnOpen(opened.state, token, opened.signedCopy, kind) });
      })
      .catch((error: unknown) => {
        if (!active) return;
        dispatch(
          isUnreached(error) ? { type: "open-offline" } : { type: "show", screen: { kind: "open-failed", error } },
        );
      });
    return () => {
      active = false;
    };
  }, [client, kind, secret, plausible, attempt, dispatch]);
}

/**
 * Waiting for an earlier signer, or signed and waiting for the others: asks where the request
 * stands every few seconds, and moves on by itself (to signing, or to the signed copy).
 */
export function usePartyPolling(
  screen: SigningScreen,
  sessionToken: string | null,
  kind: "ticket" | "token",
  dispatch: Dispatch<SigningFlowAction>,
) {
  const client = useTRPCClient();
  const polling = screen.kind === "waiting" || screen.kind === "signed" ? screen.kind : null;
  useEffect(() => {
    if (!polling || !sessionToken) return;
    let active = true;
    const ask = () =>
      client.signing.status
        .query({ sessionToken })
        .then((result) => {
          if (!active) return;
          const screen = result.state === polling ? null : screenOnPoll(result.state);
          dispatch({ type: "polled", status: result, screen });
        })
        .catch((error: unknown) => {
          // A pass that ended says so; a dropped connection is asked again next time.
          if (active && isUnauthorized(error)) dispatch({ type: "show", screen: sessionEndedScreen(kind) });
        });
    if (polling === "signed") void ask();
    const timer = window.setInterval(ask, PARTY_POLL_MS);
    return () => {
      active = false;
      window.clearInterval(timer);
    };
  }, [polling, sessionToken, client, kind, dispatch]);
}

/**
 * Started from the server's preview, the sign form works before `signing.open` has answered:
 * what it sends waits for the signing pass.
 */
export function useSigningPass(sessionToken: string | null) {
  const passWaiters = useRef<((pass: string) => void)[]>([]);
  useEffect(() => {
    if (sessionToken) for (const resolve of passWaiters.current.splice(0)) resolve(sessionToken);
  }, [sessionToken]);
  return <T>(act: (pass: string) => Promise<T>): Promise<T> =>
    sessionToken ? act(sessionToken) : new Promise<string>((resolve) => passWaiters.current.push(resolve)).then(act);
}

/** Tells the desk whose page it is, and when the flow is over. */
export function useKioskReports(kiosk: KioskHooks | undefined, view: SigningView | null, screen: SigningScreen) {
  useEffect(() => {
    if (kiosk && view) kiosk.onBranding(view.organizationName, view.branding);
  }, [kiosk, view]);
  useEffect(() => {
    if (!kiosk) return;
    if (screen.kind === "confirmation" || screen.kind === "signed") kiosk.onFinished("signed");
    // Signed offline: the patient is done; the device keeps the signature until it is sent.
    else if (screen.kind === "held") kiosk.onFinished("held");
    else if (screen.kind === "end") kiosk.onFinished(screen.state === "declined" ? "declined" : "ended");
  }, [kiosk, screen]);
}
