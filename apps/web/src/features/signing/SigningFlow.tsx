"use client";

import type { SigningView } from "@clinsign/contracts";
import { useCallback, useReducer } from "react";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { useTRPCClient } from "../../trpc/client";
import { Confirmation } from "./Confirmation";
import { PatientShell } from "../patient/PatientShell";
import { LoadFailedScreen, OpeningScreen } from "../patient/PatientScreens";
import { isPlausibleSecret, type SigningCredential } from "./session";
import { SignedForOthersScreen, WaitingScreen } from "./party";
import { SignScreen } from "./SignScreen";
import { initialSigningFlow, screenOnClosed, sessionEndedScreen, signingFlowReducer } from "./signing-flow-state";
import { ReloadButton, StateScreen } from "./StateScreen";
import { useKioskReports, useOpenSigning, usePartyPolling, useSigningPass, type KioskHooks } from "./use-signing-flow";
import { HeldScreen } from "../patient/HeldScreen";
import { useOfflineSigning } from "./use-offline-signing";
import type { SignInput } from "@clinsign/contracts";

export type { KioskHooks } from "./use-signing-flow";

export interface SigningFlowProps {
  credential: SigningCredential;
  /**
   * What the server read of a link open for signing (`signing.preview`): the page starts on the
   * document, drawn from the first HTML, while it opens the link; the sign form follows.
   */
  preview?: SigningView | null;
  /** Signing at the desk: told the organization's brand once opened, and when the flow is over. */
  kiosk?: KioskHooks;
}

/**
 * The patient's signing page: opens the link (or exchanges the A4 ticket, once), shows the
 * document, takes the signature, and confirms with the signed PDF to download. Opened again
 * after signing, it offers the signer's copy while the organization's copy period lasts (the API
 * issues a session for that), and says whom to ask after it. Every other outcome (expired,
 * declined, withdrawn, unknown link, ended session) gets its own screen.
 */
export function SigningFlow({ credential, preview = null, kiosk }: SigningFlowProps) {
  const { t, lang } = usePatientI18n();
  const client = useTRPCClient();
  const kind = "ticket" in credential ? "ticket" : "token";
  const secret = "ticket" in credential ? credential.ticket : credential.token;
  const plausible = isPlausibleSecret(secret);

  const [flow, dispatch] = useReducer(signingFlowReducer, preview, initialSigningFlow);
  const { screen, view, sessionToken, acted, copyStatus } = flow;
  useOpenSigning(kind, secret, plausible, flow.attempt, dispatch);
  usePartyPolling(screen, sessionToken, kind, dispatch);
  useKioskReports(kiosk, view, screen);
  const withPass = useSigningPass(sessionToken);
  const sign = useCallback((input: SignInput) => client.signing.sign.mutate(input), [client]);
  const offline = useOfflineSigning(credential, flow, dispatch, sign, lang);

  let content;
  if (!plausible) {
    content = <StateScreen state="unknown" />;
  } else if (screen.kind === "opening") {
    content = <OpeningScreen text={t.signing.opening} />;
  } else if (screen.kind === "open-failed") {
    content = (
      <LoadFailedScreen title={t.signing.openFailed} error={screen.error} onRetry={() => dispatch({ type: "retry" })} />
    );
  } else if (screen.kind === "end") {
    const reload = screen.state === "session_ended" ? <ReloadButton /> : undefined;
    const note = flow.heldDiscarded ? t.signing.heldDiscarded : undefined;
    content = <StateScreen state={screen.state} focus={acted} action={reload} note={note} />;
  } else if (screen.kind === "held") {
    content = (
      <HeldScreen
        texts={{
          title: t.signing.heldTitle,
          body: t.signing.heldBody,
          waiting: t.signing.heldWaiting,
          sending: t.signing.heldSending,
        }}
        online={offline.online}
        focus={acted}
      />
    );
  } else if (screen.kind === "waiting" && view?.party) {
    content = <WaitingScreen party={view.party} focus={acted} />;
  } else if (screen.kind === "signed") {
    content = <SignedForOthersScreen party={view?.party} focus={acted} />;
  } else if (screen.kind === "confirmation" && sessionToken) {
    content = (
      <Confirmation
        sessionToken={sessionToken}
        title={view?.documentTitle ?? null}
        focus={acted}
        justSigned={screen.justSigned}
        ticket={kind === "ticket"}
        initial={!screen.justSigned && copyStatus?.signedCopy ? copyStatus : undefined}
      />
    );
  } else if (screen.kind === "ready" && view) {
    content = (
      <SignScreen
        view={view}
        sessionToken={sessionToken}
        declineOpen={flow.declineOpen}
        online={offline.online}
        submitSignature={(input) =>
          offline.submit(input, (action) => withPass((pass) => sign({ sessionToken: pass, ...action, language: lang })))
        }
        submitDecline={(reason) => withPass((pass) => client.signing.decline.mutate({ sessionToken: pass, reason }))}
        onSigned={(state) =>
          state === "held"
            ? dispatch({ type: "held" })
            : dispatch({
                type: "signed",
                screen: state === "signed" ? { kind: "signed" } : { kind: "confirmation", justSigned: true },
              })
        }
        onClosed={(state) => dispatch({ type: "closed", screen: screenOnClosed(state) })}
        onSessionEnded={() => dispatch({ type: "closed", screen: sessionEndedScreen(kind) })}
        onDeclineOpen={(open) => dispatch({ type: "decline-dialog", open })}
        onDeclined={() => dispatch({ type: "closed", screen: { kind: "end", state: "declined" } })}
      />
    );
  }

  return (
    <PatientShell branding={view?.branding ?? null} organizationName={view?.organizationName ?? null}>
      {content}
    </PatientShell>
  );
}
