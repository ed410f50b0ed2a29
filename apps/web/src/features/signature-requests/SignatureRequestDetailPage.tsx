"use client";

import type { SignatureRequestDetail } from "@clinsign/contracts";
import { Badge, Button, Card, CopyField, Dialog, Fact, Facts, LiveRegion, Notice } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import Link from "next/link";
import { retryDetail } from "../../components/DetailStates";
import { DetailColumns, DetailPage } from "../../components/detail/DetailPage";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC, useTRPCClient } from "../../trpc/client";
import { base64ToBytes, saveBytes } from "../signing/download";
import { QrCode } from "./QrCode";
import { RequestChanges } from "./RequestChanges";
import { statusLabel, statusTone, waitingForDevice } from "./states";
import { Timeline } from "./Timeline";
import styles from "./signature-requests.module.css";
import { ErrorNotice } from "../../components/ErrorNotice";
import { KioskStart } from "../kiosk/KioskStart";
import { useSession } from "../../components/admin-shell/SessionContext";
import { signerRoleLabel } from "../signing/roles";
import { SignersCard } from "./SignersCard";
import { StaffSigning } from "./StaffSigning";
import { documentLanguageName } from "../documents/DocumentLanguageSelect";

type Kind = "pdf" | "metadata";

/** The signed PDF and its metadata JSON, fetched as base64 through the staff session. */
function Downloads({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const client = useTRPCClient();
  const download = useMutation({
    mutationFn: async (kind: Kind) => {
      const base64 = await client.signatures.signedArtifact.query({ id: request.id, kind });
      const bytes = base64ToBytes(base64);
      if (kind === "pdf") saveBytes(bytes, "application/pdf", `signed-${request.id}.pdf`);
      else saveBytes(bytes, "application/json", `metadata-${request.id}.json`);
    },
  });
  return (
    <div className="cs-stack">
      <div className="cs-row">
        <Button
          variant="primary"
          onClick={() => download.mutate("pdf")}
          busy={download.isPending && download.variables === "pdf"}
        >
          {s.downloadPdf}
        </Button>
        <Button
          onClick={() => download.mutate("metadata")}
          busy={download.isPending && download.variables === "metadata"}
        >
          {s.downloadMetadata}
        </Button>
      </div>
      <LiveRegion>
        {download.isPending ? (
          <p className="cs-hint">{t.common.downloading}</p>
        ) : download.isSuccess ? (
          <p className="cs-hint">{t.common.downloaded}</p>
        ) : null}
        <ErrorNotice error={download.error} />
      </LiveRegion>
    </div>
  );
}

/** The seal job gave up: its error, and "Seal again". */
function SealAgain({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const seal = useMutation(
    trpc.signatures.sealAgain.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.detail.queryKey({ id: request.id }) });
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.list.pathKey() });
      },
    }),
  );
  return (
    <Notice tone="danger" title={s.sealFailedTitle}>
      <div className="cs-stack">
        <p className={styles.flat}>{s.sealFailedBody}</p>
        {request.sealError ? <p className={`${styles.flat} cs-mono ${styles.detail}`}>{request.sealError}</p> : null}
        <div>
          <Button variant="primary" onClick={() => seal.mutate({ id: request.id })} busy={seal.isPending}>
            {s.sealAgain}
          </Button>
        </div>
        <LiveRegion>
          {seal.isSuccess ? <Notice tone="success">{s.sealAgainStarted}</Notice> : null}
          <ErrorNotice error={seal.error} />
        </LiveRegion>
      </div>
    </Notice>
  );
}

/** Signed, and the last sealing attempt failed (e.g. no time stamp yet): the job retries by itself. */
function SealDelayed({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  return (
    <Notice tone="warning" title={s.sealDelayedTitle}>
      <div className="cs-stack" data-testid="seal-delayed">
        <p className={styles.flat}>{s.sealDelayedBody}</p>
        {request.sealError ? <p className={`${styles.flat} cs-mono ${styles.detail}`}>{request.sealError}</p> : null}
      </div>
    </Notice>
  );
}

function RequestFacts({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  // A detail's facts carry the zone's short name (CET, MEZ): the clinic's clock, said each time.
  const when = (iso: string | null) => (iso ? clinic.dateTimeWithZone(iso) : "–");
  return (
    <Facts>
      <Fact term={s.columnStatus} className="cs-row">
        <Badge tone={statusTone(request.status)}>{statusLabel(request.status, s)}</Badge>
        <Badge tone="neutral">{request.visibility === "draft" ? s.visibilityDraft : s.visibilityActive}</Badge>
        {waitingForDevice(request) ? <Badge tone="warning">{s.statusWaitingForDevice}</Badge> : null}
      </Fact>
      {waitingForDevice(request) ? (
        <Fact term={s.statusWaitingForDevice}>
          {format(s.waitingForDeviceHint, { time: when(request.kioskStartedAt ?? null) })}
        </Fact>
      ) : null}
      <Fact term={s.patientId} className="cs-mono">
        {request.patientId}
      </Fact>
      <Fact term={s.document}>
        {request.documentName} · {format(s.version, { version: String(request.documentVersion) })}
        {request.documentLanguage ? ` · ${documentLanguageName(request.documentLanguage)}` : null}
      </Fact>
      {request.documentsByLanguage ? (
        <Fact term={s.byLanguageTitle}>
          {/* Which of the request's documents the patient got (issue 19): pinned when they opened it. */}
          <ul className={styles.plainList}>
            {request.documentsByLanguage.map((entry) => (
              <li key={entry.language}>
                {entry.language === "main" ? s.byLanguageMain : documentLanguageName(entry.language)}:{" "}
                <Link href={`/documents/${entry.documentId}`}>{entry.documentName}</Link>
                {request.openedAt && entry.documentId === request.documentId ? (
                  <>
                    {" "}
                    <Badge tone="accent">{s.byLanguagePatientGot}</Badge>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
          {request.openedAt ? null : <span className="cs-hint">{s.byLanguageNotYet}</span>}
        </Fact>
      ) : null}
      <Fact term={s.institutionId}>{request.institutionId}</Fact>
      <Fact term={s.orderBy}>{request.orderBy}</Fact>
      <Fact term={s.columnCreated}>{when(request.createdAt)}</Fact>
      <Fact term={s.expiry}>{when(request.expiresAt)}</Fact>
      <Fact term={s.openedAt}>{when(request.openedAt)}</Fact>
      <Fact term={s.completedAt}>{when(request.completedAt)}</Fact>
      {request.declinedAt ? (
        <Fact term={s.declinedAt}>
          {when(request.declinedAt)}
          {request.declinedRole ? (
            <span className={styles.detail} data-testid="declined-role">
              {" "}
              · {format(s.declinedByRole, { role: signerRoleLabel(request.declinedRole, t.signing.signerRoles) })}
            </span>
          ) : null}
          {request.declineReason ? (
            <span className={`cs-hint ${styles.detail}`}> · {request.declineReason}</span>
          ) : null}
        </Fact>
      ) : null}
      {request.signatureMethod ? (
        <Fact term={s.signatureMethod}>{request.signatureMethod === "drawn" ? s.methodDrawn : s.methodTyped}</Fact>
      ) : null}
      {request.sealLevel ? (
        <Fact term={s.sealLevel} data-testid="seal-level">
          PAdES {request.sealLevel}
          <span className={`cs-hint ${styles.detail}`}>
            {" "}
            · {request.timestampedAt ? format(s.trustedTimeAt, { time: when(request.timestampedAt) }) : s.noTrustedTime}
          </span>
        </Fact>
      ) : null}
      <Fact term={s.requestId}>
        <code className={`cs-mono ${styles.hash}`}>{request.id}</code>
      </Fact>
    </Facts>
  );
}

/**
 * The link the patient gets now, to copy or to show as a QR code at the desk. The link is a bearer
 * credential: the detail does not carry it, and fetching it (`signatures.revealLink`) is an audit
 * entry that the timeline shows.
 */
function LinkHandOver({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [qrOpen, setQrOpen] = useState(false);
  const reveal = useMutation(
    trpc.signatures.revealLink.mutationOptions({
      onSuccess: () =>
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.detail.queryKey({ id: request.id }) }),
    }),
  );
  const signingUrl = reveal.data?.signingUrl;
  return (
    <div className="cs-stack">
      {request.visibility === "draft" ? <Notice tone="warning">{s.draftLinkHint}</Notice> : null}
      {signingUrl ? (
        <>
          <CopyField
            label={s.signingLink}
            hint={request.assignmentUrl ? s.signingLinkReplaced : s.signingLinkHint}
            value={signingUrl}
            labels={t.common}
            testId="signing-link"
          />
          <div>
            <Button onClick={() => setQrOpen(true)}>{s.showQr}</Button>
          </div>
          <Dialog
            open={qrOpen}
            onClose={() => setQrOpen(false)}
            title={s.qrTitle}
            description={s.qrCaption}
            closeLabel={t.common.close}
          >
            <div className={styles.qrFigure}>
              <QrCode value={signingUrl} label={s.qrLabel} />
            </div>
          </Dialog>
        </>
      ) : (
        <>
          <p className="cs-hint">{s.revealLinkHint}</p>
          <div>
            <Button onClick={() => reveal.mutate({ id: request.id })} busy={reveal.isPending}>
              {s.revealLink}
            </Button>
          </div>
        </>
      )}
      <LiveRegion>
        <ErrorNotice error={reveal.error} />
      </LiveRegion>
    </div>
  );
}

/** One signature request: facts, hand-over, changes, downloads, "seal again", and the timeline. */
export function SignatureRequestDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const detail = useQuery(trpc.signatures.detail.queryOptions({ id }, { retry: retryDetail }));
  const me = useSession().user.id;
  return (
    <DetailPage
      query={detail}
      back={{ href: "/signature-requests", label: s.back }}
      loadingTitle={s.detailTitle}
      icon="signature"
      notFound={{ title: s.notFoundTitle, body: s.notFoundBody }}
      header={(request) => ({
        title: s.detailTitle,
        description: format(s.detailDescription, { document: request.documentName, patient: request.patientId }),
      })}
    >
      {(request) => {
        const closed = request.status === "completed" || request.status === "declined" || request.status === "expired";
        // Several signers: the signed-in member may be the one named to sign a staff role.
        const mine = request.signers?.find((signer) => signer.kind === "staff" && signer.staffUserId === me);
        return (
          <div className="cs-stack cs-stack--lg">
            {request.canSealAgain ? <SealAgain request={request} /> : null}
            {request.sealDelayed ? <SealDelayed request={request} /> : null}
            {mine && (!closed || mine.status === "signed") ? <StaffSigning request={request} signer={mine} /> : null}
            {request.signers && request.signers.length > 0 ? (
              <Card title={s.signersCardTitle}>
                <SignersCard request={request} signers={request.signers} />
              </Card>
            ) : null}
            <DetailColumns>
              <div className="cs-stack cs-stack--lg">
                <Card title={s.factsTitle}>
                  <RequestFacts request={request} />
                </Card>
                <Card title={s.timelineTitle} description={s.timelineDescription}>
                  <Timeline events={request.timeline} s={s} dateTime={clinic.dateTimeWithZone} />
                </Card>
              </div>
              <div className="cs-stack cs-stack--lg">
                {request.hasSignedPdf ? (
                  <Card title={s.downloadsTitle} description={s.downloadsDescription}>
                    <Downloads request={request} />
                  </Card>
                ) : null}
                {closed ? null : (
                  <Card title={s.handOverTitle}>
                    <LinkHandOver request={request} />
                    <KioskStart request={request} />
                  </Card>
                )}
                <Card title={s.changesTitle}>
                  <RequestChanges request={request} />
                </Card>
              </div>
            </DetailColumns>
          </div>
        );
      }}
    </DetailPage>
  );
}
