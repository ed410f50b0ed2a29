"use client";

import type { SigningStatus } from "@clinsign/contracts";
import { Button, Notice } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC, useTRPCClient } from "../../trpc/client";
import { isUnauthorized, readApiError } from "../../trpc/errors";
import { savePdf, signedFileName } from "./download";
import { ScreenHeading } from "../patient/ScreenHeading";
import { CheckIcon, DownloadIcon } from "../patient/icons";
import patientStyles from "../patient/patient.module.css";

/** While the sealed PDF is being made, ask again this often. */
const POLL_MS = 2000;

type DownloadProblem = "failed" | "session_ended" | "expired" | null;

export interface ConfirmationProps {
  sessionToken: string;
  title: string | null;
  focus: boolean;
  /** True right after signing in this page; false when a signed request was opened again. */
  justSigned: boolean;
  /** Opened by an A4 ticket (a new visit goes through the patient portal, not this link). */
  ticket: boolean;
  initial?: SigningStatus;
}

/**
 * After signing, and whenever a signed request is opened again while the signer's copy lasts:
 * "finishing your document" while it is `sealing` (asking `signing.status` every 2 s), then the
 * signed screen with the copy to download (fetched and audited only when the patient asks for it)
 * and until when it stays here; after that period, whom to ask for it.
 */
export function Confirmation({ sessionToken, title, focus, justSigned, ticket, initial }: ConfirmationProps) {
  const { t, locale } = usePatientI18n();
  const status = useSignedCopyStatus(sessionToken, initial);
  const { downloading, problem, download } = useSignedCopyDownload(sessionToken, title);

  const data = status.data;
  const finishing = !status.isError && (!data || data.state === "sealing" || data.signedCopy === "preparing");
  const expired = data?.signedCopy === "expired" || problem === "expired";
  // The session ended while the page was open: the signature itself is safe.
  const sessionEnded = (status.isError && isUnauthorized(status.error)) || problem === "session_ended";

  if (finishing) {
    return (
      <ConfirmationCard
        state="sealing"
        iconClassName={patientStyles.progress}
        icon={<span className="cs-spinner" />}
        title={t.signing.sealingTitle}
        focus={focus}
        body={
          <>
            {t.signing.sealingBody} {t.signing.copyPreparing}
          </>
        }
      >
        <div className={patientStyles.progressBar} aria-hidden="true">
          <span />
        </div>
      </ConfirmationCard>
    );
  }

  const available = !expired && !sessionEnded && data?.signedCopy === "available";
  let body: string;
  if (expired) body = t.signing.copyExpiredBody;
  else if (sessionEnded) body = ticket ? t.signing.copySessionEndedTicket : t.signing.copySessionEnded;
  else if (available && data.signedCopyUntil)
    body = format(t.signing.copyUntil, { date: formatDateTime(data.signedCopyUntil, locale) });
  else body = t.signing.completedNoDownload;

  return (
    <ConfirmationCard
      state={expired ? "copy_expired" : "completed"}
      iconClassName={patientStyles.stateIcon}
      icon={<CheckIcon />}
      title={
        justSigned ? t.signing.completedTitle : expired ? t.signing.copyExpiredTitle : t.signing.alreadySignedTitle
      }
      focus
      body={
        <>
          {justSigned ? `${t.signing.completedNoDownload} ` : null}
          {body}
        </>
      }
    >
      {available ? (
        <div className={patientStyles.stateAction}>
          <Button variant="primary" icon={<DownloadIcon />} busy={downloading} onClick={() => void download()}>
            {t.signing.download}
          </Button>
        </div>
      ) : null}
      {problem === "failed" || (status.isError && !sessionEnded) ? (
        <div className={patientStyles.stateAction}>
          <Notice tone="warning">{t.signing.downloadFailed}</Notice>
          {status.isError ? <Button onClick={() => void status.refetch()}>{t.common.retry}</Button> : null}
        </div>
      ) : null}
      {sessionEnded && !ticket ? (
        <div className={patientStyles.stateAction}>
          <Button onClick={() => window.location.reload()}>{t.signing.reload}</Button>
        </div>
      ) : null}
    </ConfirmationCard>
  );
}

/**
 * The card both stages share: "finishing your document" becomes the signed screen in place, so
 * its heading and its status line stay the same elements (focus stays, the new text is read).
 */
function ConfirmationCard({
  state,
  iconClassName,
  icon,
  title,
  focus,
  body,
  children,
}: {
  state: "sealing" | "completed" | "copy_expired";
  iconClassName: string | undefined;
  icon: ReactNode;
  title: string;
  focus: boolean;
  body: ReactNode;
  children: ReactNode;
}) {
  return (
    <section
      className={patientStyles.stateCard}
      data-tone="success"
      data-state={state}
      aria-labelledby="portal-heading"
    >
      <span className={iconClassName} aria-hidden="true">
        {icon}
      </span>
      <ScreenHeading focus={focus}>{title}</ScreenHeading>
      <p className={patientStyles.stateBody} role="status">
        {body}
      </p>
      {children}
    </section>
  );
}

/** Where the request and the signer's copy stand, asked again every 2 s while the copy is being made. */
function useSignedCopyStatus(sessionToken: string, initial: SigningStatus | undefined) {
  const trpc = useTRPC();
  return useQuery(
    trpc.signing.status.queryOptions(
      { sessionToken },
      {
        staleTime: 0,
        ...(initial && { initialData: initial }),
        refetchInterval: (query) => {
          const data = query.state.data;
          if (isUnauthorized(query.state.error)) return false;
          return !data || data.state === "sealing" || data.signedCopy === "preparing" ? POLL_MS : false;
        },
        refetchIntervalInBackground: true,
      },
    ),
  );
}

/** Fetches the signed copy when the patient asks for it, and saves it; says what went wrong. */
function useSignedCopyDownload(sessionToken: string, title: string | null) {
  const client = useTRPCClient();
  const [downloading, setDownloading] = useState(false);
  const [problem, setProblem] = useState<DownloadProblem>(null);

  async function download() {
    if (downloading) return;
    setDownloading(true);
    setProblem(null);
    try {
      const copy = await client.signing.signedDocument.query({ sessionToken });
      if (copy.base64) savePdf(copy.base64, signedFileName(title));
      else setProblem("failed");
    } catch (error) {
      const apiError = readApiError(error);
      if (apiError.code === "UNAUTHORIZED") setProblem("session_ended");
      else if (apiError.details.reason === "signed_copy_expired") setProblem("expired");
      else setProblem("failed");
    } finally {
      setDownloading(false);
    }
  }

  return { downloading, problem, download };
}
