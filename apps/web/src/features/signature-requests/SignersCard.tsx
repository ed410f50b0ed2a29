"use client";

import type { SignatureRequestDetail, SignerStatus, StaffSignerItem } from "@clinsign/contracts";
import { Badge, type BadgeTone, Button, CopyField, Dialog, LiveRegion, Table, type TableColumn } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useCan } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { signerRoleLabel } from "../signing/roles";
import { QrCode } from "./QrCode";
import styles from "./signature-requests.module.css";

const signerTone = (status: SignerStatus): BadgeTone =>
  status === "signed" ? "success" : status === "declined" ? "warning" : status === "waiting" ? "neutral" : "accent";

/**
 * Every signer of a request with several: role, who (the patient, a staff member, a person with
 * their own link), where they stand, when, how they signed, and a declined signer's reason. Each
 * link signer's link can be shown (an audited fetch, as for the patient's link) to copy or scan.
 */
export function SignersCard({ request, signers }: { request: SignatureRequestDetail; signers: StaffSignerItem[] }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  const names = t.signing.signerRoles;
  const closed = request.status === "completed" || request.status === "declined" || request.status === "expired";
  const mayReveal = useCan()("signatures.revealLink");
  const when = (signer: StaffSignerItem) => {
    const at = signer.signedAt ?? signer.declinedAt ?? signer.openedAt ?? signer.activatedAt;
    return at ? clinic.dateTimeWithZone(at) : "–";
  };
  const columns: TableColumn<StaffSignerItem>[] = [
    {
      key: "role",
      header: s.columnRole,
      render: (signer) => (
        <span className={styles.signerRole}>
          {request.signingOrder === "sequential" ? `${signer.position + 1}. ` : ""}
          {signerRoleLabel(signer.role, names)}
          {!signer.required ? <span className="cs-hint"> · {s.optionalRole}</span> : null}
        </span>
      ),
    },
    {
      key: "who",
      header: s.columnSigner,
      render: (signer) =>
        signer.kind === "patient"
          ? format(s.signerPatient, { patient: request.patientId })
          : signer.kind === "staff"
            ? (signer.name ?? "–")
            : [signer.name, s.signerByLink].filter(Boolean).join(" · "),
    },
    {
      key: "status",
      header: s.columnStatus,
      render: (signer) => (
        <span className={styles.signerStatus}>
          <Badge tone={signerTone(signer.status)}>{s.signerStatus[signer.status]}</Badge>
          {signer.declineReason ? <span className={`cs-hint ${styles.detail}`}>{signer.declineReason}</span> : null}
        </span>
      ),
    },
    { key: "time", header: s.columnTime, render: when },
    {
      key: "method",
      header: s.columnMethod,
      render: (signer) =>
        signer.signatureMethod === "drawn" ? s.methodDrawn : signer.signatureMethod === "typed" ? s.methodTyped : "–",
    },
    {
      key: "link",
      header: s.signingLink,
      end: true,
      render: (signer) =>
        signer.kind === "link" && !closed && mayReveal && signer.status !== "signed" && signer.status !== "declined" ? (
          <SignerLink signatureRequestId={request.id} signer={signer} />
        ) : null,
    },
  ];
  return (
    <div className="cs-stack" data-testid="signers">
      <p className="cs-hint">{request.signingOrder === "parallel" ? s.orderParallelHint : s.orderSequential}</p>
      <Table caption={s.signersCardTitle} columns={columns} rows={signers} rowKey={(signer) => signer.id} />
    </div>
  );
}

/** "Show the link": fetches the signer's link (audited), then offers it to copy and as a QR code. */
function SignerLink({ signatureRequestId, signer }: { signatureRequestId: string; signer: StaffSignerItem }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const role = signerRoleLabel(signer.role, t.signing.signerRoles);
  const reveal = useMutation(
    trpc.signatures.revealSignerLink.mutationOptions({
      onSuccess: () =>
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.detail.queryKey({ id: signatureRequestId }) }),
    }),
  );
  const url = reveal.data?.signingUrl;
  return (
    <>
      <Button
        size="small"
        aria-label={format(s.showSignerLink, { role })}
        onClick={() => {
          setOpen(true);
          if (!url) reveal.mutate({ id: signatureRequestId, signerId: signer.id });
        }}
        busy={reveal.isPending}
      >
        {s.showSignerLinkShort}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={format(s.signerQrTitle, { role })}
        description={s.signerLinkHint}
        closeLabel={t.common.close}
      >
        <div className="cs-stack">
          {url ? (
            <>
              <CopyField
                label={format(s.signerLink, { role })}
                value={url}
                labels={t.common}
                testId={`signer-link-${signer.role}`}
              />
              <div className={styles.qrFigure}>
                <QrCode value={url} label={s.qrLabel} />
              </div>
            </>
          ) : null}
          <LiveRegion>
            {reveal.isPending ? <p className="cs-hint">{t.common.loading}</p> : null}
            <ErrorNotice error={reveal.error} />
          </LiveRegion>
        </div>
      </Dialog>
    </>
  );
}
