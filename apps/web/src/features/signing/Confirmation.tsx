"use client";

import { Button, Notice } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { isUnauthorized } from "../../trpc/errors";
import { savePdf, signedFileName } from "./download";
import { ScreenHeading } from "../patient/ScreenHeading";
import { CheckIcon, DownloadIcon } from "../patient/icons";
import patientStyles from "../patient/patient.module.css";

/** While the sealed PDF is being made, ask again this often. */
const POLL_MS = 2000;

/**
 * After signing: "finishing your document" while the request is `sealing` (asking every 2 s),
 * then the thank-you screen with the signed PDF to download.
 */
export function Confirmation({ sessionToken, title, focus }: { sessionToken: string; title: string | null; focus: boolean }) {
  const { t } = usePatientI18n();
  const trpc = useTRPC();
  const signed = useQuery(
    trpc.signing.signedDocument.queryOptions(
      { sessionToken },
      {
        staleTime: 0,
        refetchInterval: (query) => (query.state.data?.state === "completed" || isUnauthorized(query.state.error) ? false : POLL_MS),
        refetchIntervalInBackground: true,
      },
    ),
  );
  const base64 = signed.data?.state === "completed" ? signed.data.base64 : null;
  const finishing = !base64 && !signed.isError && signed.data?.state !== "completed";
  // The session ended (or the download failed) after signing: the signature itself is safe.
  const downloadLost = signed.isError && isUnauthorized(signed.error);

  return (
    <section className={patientStyles.stateCard} data-tone="success" data-state={finishing ? "sealing" : "completed"} aria-labelledby="portal-heading">
      {finishing ? (
        <>
          <span className={patientStyles.progress} aria-hidden="true">
            <span className="cs-spinner" />
          </span>
          <ScreenHeading focus={focus}>{t.signing.sealingTitle}</ScreenHeading>
          <p className={patientStyles.stateBody} role="status">
            {t.signing.sealingBody}
          </p>
          <div className={patientStyles.progressBar} aria-hidden="true">
            <span />
          </div>
        </>
      ) : (
        <>
          <span className={patientStyles.stateIcon} aria-hidden="true">
            <CheckIcon />
          </span>
          <ScreenHeading focus>{t.signing.completedTitle}</ScreenHeading>
          <p className={patientStyles.stateBody} role="status">
            {base64 ? t.signing.completedBody : t.signing.completedNoDownload}
          </p>
          {base64 ? (
            <div className={patientStyles.stateAction}>
              <Button variant="primary" icon={<DownloadIcon />} onClick={() => savePdf(base64, signedFileName(title))}>
                {t.signing.download}
              </Button>
            </div>
          ) : null}
          {signed.isError && !downloadLost ? (
            <div className={patientStyles.stateAction}>
              <Notice tone="warning">{t.signing.downloadFailed}</Notice>
              <Button onClick={() => void signed.refetch()}>{t.common.retry}</Button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
