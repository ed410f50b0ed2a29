"use client";

import { fhirDeliveryStatus, type FhirDelivery } from "@clinsign/contracts";
import { keysetPaging, LiveRegion, Notice, SelectField, useAnnouncement, useStaffList } from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useCan } from "../../components/admin-shell/SessionContext";
import { ListEmpty } from "../../components/lists/filters";
import { ListCard } from "../../components/lists/ListCard";
import { useUrlFilters } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { deliveryColumns, sourceName } from "./delivery-columns";
import styles from "./fhir-push.module.css";

/**
 * FHIR deliveries (issue 34): each completed record sent to the organization's FHIR server, newest
 * first, by status (in the URL), with "Send again" for what has not arrived, said in a live region.
 */
export function FhirDeliveriesPage() {
  const { t } = useI18n();
  const f = t.fhirPush;
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const { values, apply } = useUrlFilters(["status"] as const);
  const status = fhirDeliveryStatus.options.find((s) => s === values.status);
  const list = useStaffList(
    useInfiniteQuery(trpc.fhirPush.deliveries.infiniteQueryOptions({ status, limit: 50 }, keysetPaging)),
  );
  const sendAgain = useSendAgain();

  return (
    <>
      <PageHeader title={f.pageTitle} description={f.pageDescription} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={sendAgain.announcement}>
          {sendAgain.failure ? <Notice tone="danger">{sendAgain.failure}</Notice> : null}
        </LiveRegion>
        <ListCard
          title={f.listCaption}
          description={clinic.note}
          toolbar={
            <div className={styles.toolbar}>
              <SelectField
                id="fhir-delivery-status"
                label={f.statusFilter}
                placeholder={f.allStatuses}
                options={fhirDeliveryStatus.options.map((s) => ({ value: s, label: f.statuses[s] }))}
                value={status ?? ""}
                onChange={(event) => apply({ status: event.currentTarget.value })}
              />
            </div>
          }
          list={list}
          columns={deliveryColumns({ f, clinic, sending: sendAgain.sending, onSendAgain: sendAgain.send })}
          rowKey={(row) => row.id}
          labels={{ shown: f.shown, loadMore: f.loadMore }}
          empty={<DeliveriesEmpty filtered={Boolean(status)} />}
        />
      </div>
    </>
  );
}

/** "Send again": queued at once (no confirmation: it only repeats what was meant to arrive), then said. */
function useSendAgain() {
  const { t } = useI18n();
  const f = t.fhirPush;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [announcement, announce] = useAnnouncement();
  const [failure, setFailure] = useState<string | null>(null);
  const resend = useMutation(
    trpc.fhirPush.resend.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.fhirPush.deliveries.pathKey() }),
    }),
  );
  function send(row: FhirDelivery) {
    const source = sourceName(row, f);
    setFailure(null);
    announce("");
    resend.mutate(
      { id: row.id },
      {
        onSuccess: () => announce(format(f.sentAgain, { source })),
        onError: (error) =>
          setFailure(format(f.sendAgainFailed, { source, reason: describeApiError(readApiError(error), t) })),
      },
    );
  }
  return { send, sending: resend.isPending ? (resend.variables?.id ?? null) : null, announcement, failure };
}

/** Nothing sent yet (with the way to Settings for those who may turn it on), or nothing of this status. */
function DeliveriesEmpty({ filtered }: { filtered: boolean }) {
  const { t } = useI18n();
  const f = t.fhirPush;
  const admin = useCan()("fhirPush.saveTarget");
  const action = admin ? (
    <Link className="cs-button cs-button--primary" href="/settings#fhir-push">
      {f.emptyAction}
    </Link>
  ) : null;
  return (
    <ListEmpty
      icon="globe"
      filtered={filtered}
      texts={{
        emptyTitle: f.emptyTitle,
        emptyBody: admin ? f.emptyBodyAdmin : f.emptyBody,
        emptyFilteredTitle: f.emptyFilteredTitle,
      }}
      action={action}
    />
  );
}
