"use client";

import type { SigningState, SigningView } from "@clinsign/contracts";
import { useQuery } from "@tanstack/react-query";
import { LiveRegion, Notice } from "@clinsign/ui";
import { useMemo } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useHydrated } from "../../lib/use-hydrated";
import { useTRPC } from "../../trpc/client";
import { ScreenHeading } from "../patient/ScreenHeading";
import { DeclineDialog } from "./DeclineDialog";
import { DocumentView } from "./DocumentView";
import { partyFields, PartyList } from "./party";
import { SignForm, type SignatureSubmission, type SignOutcome } from "./SignForm";
import styles from "./signing.module.css";

export interface SignScreenProps {
  view: SigningView;
  /** Null while the page opens the link (the preview's document is shown meanwhile). */
  sessionToken: string | null;
  declineOpen: boolean;
  /** False without a network: the page says that a signature is kept on the device until it returns. */
  online?: boolean;
  submitSignature(input: SignatureSubmission): Promise<{ state: SignOutcome }>;
  submitDecline(reason: string | undefined): Promise<unknown>;
  onSigned(state: SignOutcome): void;
  /** Signing or declining found the request closed meanwhile. */
  onClosed(state: SigningState): void;
  onSessionEnded(): void;
  onDeclineOpen(open: boolean): void;
  onDeclined(): void;
}

/** The ready screen: what the document is, who signs it, its pages, the sign form and the decline dialog. */
export function SignScreen(props: SignScreenProps) {
  const { view, sessionToken, onClosed, onSessionEnded, onDeclineOpen } = props;
  return (
    <div className={styles.flow}>
      <DocumentHeader view={view} />
      <OfflineNotice online={props.online ?? true} />
      {view.party ? <PartyList party={view.party} /> : null}
      <PatientDocument view={view} sessionToken={sessionToken} onGoToSignature={goToSignature} />
      <SignForm
        submit={props.submitSignature}
        onSigned={props.onSigned}
        onClosed={onClosed}
        onSessionEnded={onSessionEnded}
        onDecline={() => onDeclineOpen(true)}
      />
      <DeclineDialog
        open={props.declineOpen}
        submit={props.submitDecline}
        onClose={() => onDeclineOpen(false)}
        onDeclined={props.onDeclined}
        onClosed={onClosed}
        onSessionEnded={onSessionEnded}
      />
    </div>
  );
}

/** Without a network: what happens to a signature made now (said once the page runs, never on the server). */
function OfflineNotice({ online }: { online: boolean }) {
  const { t } = usePatientI18n();
  return (
    <LiveRegion politeness="polite">
      {online ? null : (
        <Notice tone="warning" title={t.signing.offlineTitle}>
          {t.signing.offlineBody}
        </Notice>
      )}
    </LiveRegion>
  );
}

/** Skips the pages: scrolls to the signature form and moves the focus to its heading. */
function goToSignature() {
  const heading = document.getElementById("sign-heading");
  if (!heading) return;
  const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  heading.scrollIntoView({ behavior: reduce ? "auto" : "smooth", block: "start" });
  heading.focus({ preventScroll: true });
}

/** The document's title and description, the steps, and until when it can be signed. */
function DocumentHeader({ view }: { view: SigningView }) {
  const { t, locale } = usePatientI18n();
  const hydrated = useHydrated();
  return (
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
      pageSizes={view.pageSizes}
      fields={fields}
      several={Boolean(view.party)}
      pageImages={view.pageImages}
      useDocument={useDocument}
      usePageTexts={usePageTexts}
      onGoToSignature={onGoToSignature}
    />
  );
}
