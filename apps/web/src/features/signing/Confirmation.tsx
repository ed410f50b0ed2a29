"use client";

import type { SigningStatus } from "@clinsign/contracts";
import { Button, Notice } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
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

/**
 * After signing, and whenever a signed request is opened again while the signer's copy lasts:
 * "finishing your document" while it is `sealing` (asking `signing.status` every 2 s), then the
 * signed screen with the copy to download (fetched and audited only when the patient asks for it)
 * and until when it stays here; after that period, whom to ask for it.
 */
export function Confirmation({
  sessionToken,
  title,
  focus,
  justSigned,
  ticket,
  initial,
}: {
  sessionToken: string;
  title: string | null;
  focus: boolean;
  /** True right after signing in this page; false when a signed request was opened again. */
  justSigned: boolean;
  /** Opened by an A4 ticket (a new visit goes through the patient portal, not this link). */
  ticket: boolean;
  initial?: SigningStatus;
}) {
  const { t, locale } = usePatientI18n();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const status = useQuery(
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
  const [downloading, setDownloading] = useState(false);
  const [problem, setProblem] = useState<DownloadProblem>(null);

  const data = status.data;
  const finishing = !status.isError && (!data || data.state === "sealing" || data.signedCopy === "preparing");
  const expired = data?.signedCopy === "expired" || problem === "expired";
  // The session ended while the page was open: the signature itself is safe.
  const sessionEnded = (status.isError && isUnauthorized(status.error)) || problem === "session_ended";

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

  if (finishing) {
    return (
      <section
        className={patientStyles.stateCard}
        data-tone="success"
        data-state="sealing"
        aria-labelledby="portal-heading"
      >
        <span className={patientStyles.progress} aria-hidden="true">
          <span className="cs-spinner" />
        </span>
        <ScreenHeading focus={focus}>{t.signing.sealingTitle}</ScreenHeading>
        <p className={patientStyles.stateBody} role="status">
          {t.signing.sealingBody} {t.signing.copyPreparing}
        </p>
        <div className={patientStyles.progressBar} aria-hidden="true">
          <span />
        </div>
      </section>
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
    <section
      className={patientStyles.stateCard}
      data-tone="success"
      data-state={expired ? "copy_expired" : "completed"}
      aria-labelledby="portal-heading"
    >
      <span className={patientStyles.stateIcon} aria-hidden="true">
        <CheckIcon />
      </span>
      <ScreenHeading focus>
        {justSigned ? t.signing.completedTitle : expired ? t.signing.copyExpiredTitle : t.signing.alreadySignedTitle}
      </ScreenHeading>
      <p className={patientStyles.stateBody} role="status">
        {justSigned ? `${t.signing.completedNoDownload} ` : null}
        {body}
      </p>
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
    </section>
  );
}
