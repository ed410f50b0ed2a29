"use client";

import { can, type SignatureRequestDetail } from "@clinsign/contracts";
import { Button, ConfirmDialog, LiveRegion } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useSession } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { forgetStoredSignings } from "../signing/session";

/**
 * "Sign at this device": hands this browser to the patient of an open request. The API ends the
 * staff session (row and cookie); here the console's cached data is dropped and the page is
 * replaced (not pushed) by the signing page, so neither memory nor history leads back to the
 * console without signing in again.
 */
export function KioskStart({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const me = useSession();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const start = useMutation(
    trpc.signatures.startKiosk.mutationOptions({
      onSuccess: ({ kioskPath }) => {
        queryClient.clear();
        forgetStoredSignings();
        window.location.replace(kioskPath);
      },
    }),
  );
  const signable = request.visibility === "active" && (request.status === "pending" || request.status === "opened");
  if (!signable || !can(me.role, "signatures.startKiosk")) return null;
  return (
    <div className="cs-stack">
      <p className="cs-hint">{s.kioskStartHint}</p>
      <div>
        <Button onClick={() => setOpen(true)}>{s.kioskStart}</Button>
      </div>
      <ConfirmDialog
        open={open}
        onCancel={() => setOpen(false)}
        onConfirm={() => start.mutate({ id: request.id })}
        tone="primary"
        title={s.kioskConfirmTitle}
        description={s.kioskConfirmBody}
        confirmLabel={s.kioskConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={start.isPending}
      >
        <LiveRegion>
          <ErrorNotice error={start.error} />
        </LiveRegion>
      </ConfirmDialog>
    </div>
  );
}
