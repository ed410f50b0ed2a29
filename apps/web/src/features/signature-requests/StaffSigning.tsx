"use client";

import type { SignatureRequestDetail, StaffSignerItem } from "@clinsign/contracts";
import { Button, Card, Notice } from "@clinsign/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { ErrorNotice } from "../../components/ErrorNotice";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC, useTRPCClient } from "../../trpc/client";
import { DeclineDialog } from "../signing/DeclineDialog";
import { DocumentView } from "../signing/DocumentView";
import { partyFields, stillToSign } from "../signing/party";
import { signerRoleLabel, signerRoleList } from "../signing/roles";
import { SignForm } from "../signing/SignForm";

/**
 * The named staff member signs their role in the console ("Sign now"): the same document view,
 * signature pad and sign form as the patient's page, sent with the staff session
 * (`signatures.signAsStaff` / `declineAsStaff`) instead of a signing pass. Not their turn yet
 * (one after the other): whom they wait for.
 */
export function StaffSigning({ request, signer }: { request: SignatureRequestDetail; signer: StaffSignerItem }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const role = signerRoleLabel(signer.role, t.signing.signerRoles);
  const [open, setOpen] = useState(false);
  const signed = signer.status === "signed";
  return (
    <Card
      title={format(s.signNowTitle, { role })}
      description={signed ? undefined : format(s.signNowDescription, { role })}
    >
      {signed ? (
        <Notice tone="success">{format(s.signNowSigned, { role })}</Notice>
      ) : open ? (
        <StaffSigningPanel request={request} role={role} />
      ) : (
        <div className="cs-row">
          <Button variant="primary" onClick={() => setOpen(true)} disabled={signer.status === "waiting"}>
            {format(s.signNow, { role })}
          </Button>
          {signer.status === "waiting" ? <WaitingNote request={request} signer={signer} role={role} /> : null}
        </div>
      )}
    </Card>
  );
}

/** One after the other, and required signers before this one have not signed yet. */
function WaitingNote({
  request,
  signer,
  role,
}: {
  request: SignatureRequestDetail;
  signer: StaffSignerItem;
  role: string;
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const before = (request.signers ?? [])
    .filter((other) => other.position < signer.position && other.required && other.status !== "signed")
    .map((other) => other.role);
  return (
    <p className="cs-hint" data-testid="staff-signer-waiting">
      {format(s.signNowWaiting, { role, roles: signerRoleList(before, t.signing.signerRoles) })}
    </p>
  );
}

function StaffSigningPanel({ request, role }: { request: SignatureRequestDetail; role: string }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [declineOpen, setDeclineOpen] = useState(false);
  const id = request.id;
  // Opening the view is a mutation on the API (it marks the signer as having opened it), read once here.
  const viewKey = ["signatures.staffSigningView", id] as const;
  const view = useQuery({
    queryKey: viewKey,
    queryFn: () => client.signatures.staffSigningView.mutate({ id }),
    refetchOnWindowFocus: false,
  });
  const ready = view.data?.state === "ready";
  // The document view asks for the PDF when it needs it (the console has no page images).
  const useDocument = (enabled: boolean) =>
    useQuery({
      ...trpc.signatures.staffSigningDocument.queryOptions({ id }),
      enabled: enabled && ready,
      staleTime: Infinity,
    });
  const fields = useMemo(() => (view.data ? partyFields(view.data, t) : []), [view.data, t]);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.detail.queryKey({ id }) });
    void queryClient.invalidateQueries({ queryKey: viewKey });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.list.pathKey() });
  };
  const goToSignature = () => {
    const heading = globalThis.document.getElementById("sign-heading");
    heading?.scrollIntoView({ block: "start" });
    heading?.focus({ preventScroll: true });
  };

  if (view.isPending) return <p className="cs-hint">{t.common.loading}</p>;
  if (view.error) return <ErrorNotice error={view.error} />;
  const state = view.data.state;
  if (state === "waiting") {
    return (
      <p className="cs-hint" data-testid="staff-signer-waiting">
        {format(s.signNowWaiting, {
          role,
          roles: signerRoleList(view.data.party?.waitingFor ?? [], t.signing.signerRoles),
        })}
      </p>
    );
  }
  if (state === "signed" || state === "sealing" || state === "completed") {
    const remaining = view.data.party ? stillToSign(view.data.party) : [];
    return (
      <Notice tone="success">
        {format(s.signNowSigned, { role })}
        {remaining.length > 0
          ? ` ${format(s.signNowStillToSign, { roles: signerRoleList(remaining, t.signing.signerRoles) })}`
          : null}
      </Notice>
    );
  }
  if (state !== "ready") return <Notice tone="warning">{s.signNowClosed}</Notice>;
  return (
    <div className="cs-stack cs-stack--lg" data-testid="staff-signing">
      <DocumentView
        pageCount={view.data.pageCount}
        pageSizes={view.data.pageSizes}
        fields={fields}
        several
        useDocument={useDocument}
        onGoToSignature={goToSignature}
      />
      <SignForm
        submit={(input) => client.signatures.signAsStaff.mutate({ id, ...input })}
        onSigned={refresh}
        onClosed={refresh}
        onSessionEnded={() => window.location.reload()}
        onDecline={() => setDeclineOpen(true)}
      />
      <DeclineDialog
        open={declineOpen}
        submit={(reason) => client.signatures.declineAsStaff.mutate({ id, reason })}
        onClose={() => setDeclineOpen(false)}
        onDeclined={() => {
          setDeclineOpen(false);
          refresh();
        }}
        onClosed={() => {
          setDeclineOpen(false);
          refresh();
        }}
        onSessionEnded={() => window.location.reload()}
      />
    </div>
  );
}
