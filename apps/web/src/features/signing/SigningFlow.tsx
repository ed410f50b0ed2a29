"use client";

import type { SignedCopyState, SigningState, SigningStatus, SigningView } from "@clinsign/contracts";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useHydrated } from "../../lib/use-hydrated";
import { useTRPC, useTRPCClient } from "../../trpc/client";
import { isUnauthorized } from "../../trpc/errors";
import { Confirmation } from "./Confirmation";
import { DeclineDialog } from "./DeclineDialog";
import { DocumentView } from "./DocumentView";
import { PatientShell } from "../patient/PatientShell";
import { LoadFailedScreen, OpeningScreen } from "../patient/PatientScreens";
import { ScreenHeading } from "../patient/ScreenHeading";
import { isPlausibleSecret, loadStoredSigning, openOnce, storeSigning, type SigningCredential } from "./session";
import { partyFields, PartyList, SignedForOthersScreen, WaitingScreen } from "./party";
import { SignForm } from "./SignForm";
import { ReloadButton, StateScreen, type EndState } from "./StateScreen";
import styles from "./signing.module.css";

/** How often a waiting signer's page asks whether it is their turn (and a signer who signed, whether it is sealed). */
const PARTY_POLL_MS = 4_000;

/** What signing at the desk (features/kiosk) learns from the flow. */
export interface KioskHooks {
  /** The page knows whose page it is: the organization's name and branding (no patient data). */
  onBranding(organizationName: string | null, branding: SigningView["branding"]): void;
  /** Signed, declined, or any screen that ends the flow: the desk locks the device. */
  onFinished(outcome: "signed" | "declined" | "ended"): void;
}

type Screen =
  | { kind: "opening" }
  | { kind: "open-failed"; error: unknown }
  | { kind: "ready" }
  /** Several signers, sequential: an earlier signer has not signed yet (the page polls). */
  | { kind: "waiting" }
  /** Several signers: this signer signed, others still have to (the page polls). */
  | { kind: "signed" }
  | { kind: "confirmation"; justSigned: boolean }
  | { kind: "end"; state: EndState };

/**
 * The patient's signing page: opens the link (or exchanges the A4 ticket, once), shows the
 * document, takes the signature, and confirms with the signed PDF to download. Opened again
 * after signing, it offers the signer's copy while the organization's copy period lasts (the API
 * issues a session for that), and says whom to ask after it. Every other outcome (expired,
 * declined, withdrawn, unknown link, ended session) gets its own screen.
 */
export function SigningFlow({
  credential,
  preview = null,
  kiosk,
}: {
  credential: SigningCredential;
  /**
   * What the server read of a link open for signing (`signing.preview`): the page starts on the
   * document, drawn from the first HTML, while it opens the link; the sign form follows.
   */
  preview?: SigningView | null;
  /** Signing at the desk: told the organization's brand once opened, and when the flow is over. */
  kiosk?: KioskHooks;
}) {
  const { t, locale, lang } = usePatientI18n();
  const client = useTRPCClient();
  const kind = "ticket" in credential ? "ticket" : "token";
  const secret = "ticket" in credential ? credential.ticket : credential.token;
  const plausible = isPlausibleSecret(secret);
  const hydrated = useHydrated();

  const [screen, setScreen] = useState<Screen>(preview ? { kind: "ready" } : { kind: "opening" });
  const [view, setView] = useState<SigningView | null>(preview);
  const [sessionToken, setSessionToken] = useState<string | null>(null);
  const [declineOpen, setDeclineOpen] = useState(false);
  // Focus follows the patient's own actions (sign, decline), not the first load.
  const [acted, setActed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  // What the page last learnt about the signed copy (from open or status), shown at once.
  const [copyStatus, setCopyStatus] = useState<SigningStatus | null>(null);
  // Started from the server's preview, the sign form works before `signing.open` has answered:
  // what it sends waits for the signing pass.
  const passWaiters = useRef<((pass: string) => void)[]>([]);
  useEffect(() => {
    if (sessionToken) for (const resolve of passWaiters.current.splice(0)) resolve(sessionToken);
  }, [sessionToken]);
  const withPass = <T,>(act: (pass: string) => Promise<T>): Promise<T> =>
    sessionToken ? act(sessionToken) : new Promise<string>((resolve) => passWaiters.current.push(resolve)).then(act);

  useEffect(() => {
    if (!plausible) return;
    let active = true;
    const current: SigningCredential = kind === "ticket" ? { ticket: secret } : { token: secret };
    const stored = loadStoredSigning(current);
    const endedState: EndState = kind === "ticket" ? "session_ended_ticket" : "session_ended";

    const show = (state: SigningState, token: string | null, signedCopy: SignedCopyState | null) => {
      if (state === "ready") setScreen(token ? { kind: "ready" } : { kind: "end", state: endedState });
      else if (state === "waiting") setScreen(token ? { kind: "waiting" } : { kind: "end", state: endedState });
      else if (state === "signed") setScreen({ kind: "signed" });
      else if (signedCopy === "expired") setScreen({ kind: "end", state: "copy_expired" });
      else if ((state === "sealing" || state === "completed") && token)
        setScreen({ kind: "confirmation", justSigned: false });
      else if (state === "sealing") setScreen({ kind: "end", state: "sealing_elsewhere" });
      else if (state === "completed") setScreen({ kind: "end", state: "already_signed" });
      else setScreen({ kind: "end", state });
    };

    if (kind === "ticket" && stored) {
      // A reload after the ticket was exchanged: continue with this tab's session.
      setView(stored.view);
      setSessionToken(stored.sessionToken);
      client.signing.status
        .query({ sessionToken: stored.sessionToken })
        .then((result) => {
          if (!active) return;
          setCopyStatus(result);
          show(result.state, stored.sessionToken, result.signedCopy);
        })
        .catch((error: unknown) => {
          if (!active) return;
          if (isUnauthorized(error)) setScreen({ kind: "end", state: endedState });
          else setScreen({ kind: "open-failed", error });
        });
      return () => {
        active = false;
      };
    }

    // The page's language picks the document when the request has one per language (issue 19);
    // the first open pins it, so a later switch of language keeps the same document.
    openOnce(current, (c) => client.signing.open.mutate({ ...c, language: lang }))
      .then((opened) => {
        if (!active) return;
        setView(opened);
        const token = opened.sessionToken;
        if (token) storeSigning(current, { view: opened, sessionToken: token });
        setSessionToken(token);
        setCopyStatus({ state: opened.state, signedCopy: opened.signedCopy, signedCopyUntil: opened.signedCopyUntil });
        show(opened.state, token, opened.signedCopy);
      })
      .catch((error: unknown) => {
        if (active) setScreen({ kind: "open-failed", error });
      });
    return () => {
      active = false;
    };
    // `lang` is read at the first open only: the document is pinned then, and a later switch of
    // language must not run this again (it would show the first answer's state over the current one).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, kind, secret, plausible, attempt]);

  // Waiting for an earlier signer, or signed and waiting for the others: ask where the request
  // stands every few seconds, and move on by itself (to signing, or to the signed copy).
  const polling = screen.kind === "waiting" || screen.kind === "signed" ? screen.kind : null;
  useEffect(() => {
    if (!polling || !sessionToken) return;
    let active = true;
    const ask = () =>
      client.signing.status
        .query({ sessionToken })
        .then((result) => {
          if (!active) return;
          if (result.party) setView((current) => current && { ...current, party: result.party });
          setCopyStatus(result);
          if (result.state === polling) return;
          if (result.state === "ready") setScreen({ kind: "ready" });
          else if (result.state === "sealing" || result.state === "completed")
            setScreen({ kind: "confirmation", justSigned: false });
          else if (result.state === "waiting" || result.state === "signed") setScreen({ kind: result.state });
          else setScreen({ kind: "end", state: result.state });
        })
        .catch((error: unknown) => {
          // A pass that ended says so; a dropped connection is asked again next time.
          if (active && isUnauthorized(error))
            setScreen({ kind: "end", state: kind === "ticket" ? "session_ended_ticket" : "session_ended" });
        });
    if (polling === "signed") void ask();
    const timer = window.setInterval(ask, PARTY_POLL_MS);
    return () => {
      active = false;
      window.clearInterval(timer);
    };
  }, [polling, sessionToken, client, kind]);

  useEffect(() => {
    if (kiosk && view) kiosk.onBranding(view.organizationName, view.branding);
  }, [kiosk, view]);
  useEffect(() => {
    if (!kiosk) return;
    if (screen.kind === "confirmation" || screen.kind === "signed") kiosk.onFinished("signed");
    else if (screen.kind === "end") kiosk.onFinished(screen.state === "declined" ? "declined" : "ended");
  }, [kiosk, screen]);

  /** Skips the pages: scrolls to the signature form and moves the focus to its heading. */
  const goToSignature = () => {
    const heading = document.getElementById("sign-heading");
    if (!heading) return;
    const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    heading.scrollIntoView({ behavior: reduce ? "auto" : "smooth", block: "start" });
    heading.focus({ preventScroll: true });
  };

  const endWith = (state: EndState) => {
    setActed(true);
    setDeclineOpen(false);
    setScreen({ kind: "end", state });
  };
  const sessionEnded = () => endWith(kind === "ticket" ? "session_ended_ticket" : "session_ended");
  const closedWith = (state: SigningState) => {
    setActed(true);
    setDeclineOpen(false);
    if (state === "sealing" || state === "completed") setScreen({ kind: "confirmation", justSigned: false });
    else if (state === "waiting" || state === "signed") setScreen({ kind: state });
    else endWith(state === "ready" ? "unknown" : state);
  };

  let content;
  if (!plausible) {
    content = <StateScreen state="unknown" />;
  } else if (screen.kind === "opening") {
    content = <OpeningScreen text={t.signing.opening} />;
  } else if (screen.kind === "open-failed") {
    content = (
      <LoadFailedScreen
        title={t.signing.openFailed}
        error={screen.error}
        onRetry={() => (setScreen({ kind: "opening" }), setAttempt((n) => n + 1))}
      />
    );
  } else if (screen.kind === "end") {
    const reload = screen.state === "session_ended" ? <ReloadButton /> : undefined;
    content = <StateScreen state={screen.state} focus={acted} action={reload} />;
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
      <div className={styles.flow}>
        <header className={styles.docHeader}>
          <p className={styles.eyebrow}>{t.signing.pageTitle}</p>
          {/* The clinic's own words, in whatever language it wrote them: their direction is their own. */}
          <ScreenHeading dir="auto">{view.documentTitle}</ScreenHeading>
          {view.documentDescription ? (
            <p className={styles.description} dir="auto">
              {view.documentDescription}
            </p>
          ) : null}
          <p className={styles.steps}>{t.signing.steps}</p>
          {view.expiresAt ? (
            // On the phone's clock, which the server does not know: written once the page runs.
            <p className="cs-hint">
              {hydrated ? format(t.signing.expiresAt, { date: formatDateTime(view.expiresAt, locale) }) : "\u00a0"}
            </p>
          ) : null}
        </header>
        {view.party ? <PartyList party={view.party} /> : null}
        <PatientDocument view={view} sessionToken={sessionToken} onGoToSignature={goToSignature} />
        <SignForm
          submit={(input) =>
            withPass((pass) => client.signing.sign.mutate({ sessionToken: pass, ...input, language: lang }))
          }
          onSigned={(state) => {
            setActed(true);
            setScreen(state === "signed" ? { kind: "signed" } : { kind: "confirmation", justSigned: true });
          }}
          onClosed={closedWith}
          onSessionEnded={sessionEnded}
          onDecline={() => setDeclineOpen(true)}
        />
        <DeclineDialog
          open={declineOpen}
          submit={(reason) => withPass((pass) => client.signing.decline.mutate({ sessionToken: pass, reason }))}
          onClose={() => setDeclineOpen(false)}
          onDeclined={() => endWith("declined")}
          onClosed={closedWith}
          onSessionEnded={sessionEnded}
        />
      </div>
    );
  }

  return (
    <PatientShell branding={view?.branding ?? null} organizationName={view?.organizationName ?? null}>
      {content}
    </PatientShell>
  );
}

/** The pinned document through the signing pass, with this signer's fields and the others' signatures. */
function PatientDocument({
  view,
  sessionToken,
  onGoToSignature,
}: {
  view: SigningView;
  /** Null while the page opens the link (the preview's document is shown meanwhile). */
  sessionToken: string | null;
  onGoToSignature(): void;
}) {
  const { t } = usePatientI18n();
  const trpc = useTRPC();
  // The PDF and the pages' texts are fetched only when the document view needs them: the page
  // images come with the view, pdf.js and the PDF only without them or for the original.
  const useDocument = (enabled: boolean) =>
    useQuery({
      ...trpc.signing.document.queryOptions(
        { sessionToken: sessionToken ?? "" },
        { staleTime: Infinity, gcTime: Infinity },
      ),
      enabled: enabled && sessionToken !== null,
    });
  const usePageTexts = (enabled: boolean) =>
    useQuery({
      ...trpc.signing.pageTexts.queryOptions(
        { sessionToken: sessionToken ?? "" },
        { staleTime: Infinity, gcTime: Infinity },
      ),
      enabled: enabled && sessionToken !== null,
    });
  const fields = useMemo(() => partyFields(view, t), [view, t]);
  return (
    <DocumentView
      pageCount={view.pageCount}
      fields={fields}
      several={Boolean(view.party)}
      pageImages={view.pageImages}
      useDocument={useDocument}
      usePageTexts={usePageTexts}
      onGoToSignature={onGoToSignature}
    />
  );
}
