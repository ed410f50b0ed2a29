"use client";

import type { WebhookAttemptItem } from "@clinsign/contracts";
import { Badge, Button, Dialog, LiveRegion, Notice, Skeleton } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import lists from "../../components/lists/lists.module.css";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./webhooks.module.css";

type Texts = Dictionary["webhooksPage"];

/** An attempt's outcome: HTTP status (or "no answer") and, when it failed, why. */
export function AttemptResult({ attempt, w }: { attempt: WebhookAttemptItem; w: Texts }) {
  return (
    <div className={lists.stacked}>
      <Badge tone={attempt.delivered ? "success" : "danger"}>
        {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : w.noAnswer} ·{" "}
        {attempt.delivered ? w.outcomeDelivered : w.outcomeFailed}
      </Badge>
      {/* The reason, unless the badge already says it all ("HTTP 500"). */}
      {attempt.errorMessage && !attempt.delivered && attempt.errorMessage !== `HTTP ${attempt.statusCode}` ? (
        <span className={lists.error}>{attempt.errorMessage}</span>
      ) : null}
    </div>
  );
}

function DeliveryPanel({ deliveryId }: { deliveryId: string }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const w = t.webhooksPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const delivery = useQuery(trpc.webhooks.delivery.queryOptions({ deliveryId }));
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.attempts.pathKey() }),
    }),
  );

  if (delivery.isPending) return <Skeleton label={t.common.loading} lines={3} />;
  if (delivery.error) return <Notice tone="danger">{describeApiError(readApiError(delivery.error), t)}</Notice>;
  const d = delivery.data;
  const statusText = { pending: w.statusPending, delivered: w.statusDelivered, failed: w.statusFailed }[d.status];

  return (
    <div className="cs-stack">
      <p className="cs-hint">{format(w.deliveryStatus, { status: statusText })}</p>
      <h3 className={lists.detailsHeading}>{w.attemptsTitle}</h3>
      <ol className={styles.attempts}>
        {d.attempts.map((attempt) => (
          <li key={attempt.id}>
            <span>{format(w.attemptNo, { attempt: String(attempt.attempt) })}</span>{" "}
            <span className="cs-hint">{clinic.dateTime(attempt.createdAt)}</span>{" "}
            <span className="cs-hint">{format(w.duration, { ms: String(attempt.durationMs) })}</span>
            <AttemptResult attempt={attempt} w={w} />
          </li>
        ))}
      </ol>
      <h3 className={lists.detailsHeading}>{w.bodyTitle}</h3>
      {/* Scrolls when long: focusable and named, so a keyboard can scroll it too. */}
      <pre className={styles.json} data-testid="delivery-body" tabIndex={0} role="region" aria-label={w.bodyTitle}>
        {d.body}
      </pre>
      <p className="cs-hint">{w.resendHint}</p>
      <div>
        <Button size="small" onClick={() => resend.mutate({ deliveryId: d.id })} busy={resend.isPending}>
          {w.resend}
        </Button>
      </div>
      <LiveRegion>
        {resend.data ? (
          <Notice tone={resend.data.delivered ? "success" : "warning"}>
            {resend.data.delivered ? w.resentDelivered : w.resentFailed}
          </Notice>
        ) : null}
        {resend.error ? <Notice tone="danger">{describeApiError(readApiError(resend.error), t)}</Notice> : null}
      </LiveRegion>
    </div>
  );
}

/** The log's details button: a dialog with the delivery's exact body and every attempt, loaded when it opens. */
export function DeliveryDetails({ attempt }: { attempt: WebhookAttemptItem }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const w = t.webhooksPage;
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        size="small"
        onClick={() => setOpen(true)}
        aria-label={format(w.showDetailsLabel, {
          event: attempt.eventType,
          date: clinic.dateTime(attempt.createdAt),
        })}
      >
        {w.showDetails}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={attempt.eventType}
        description={attempt.webhookUrl}
        closeLabel={t.common.close}
      >
        {open ? <DeliveryPanel deliveryId={attempt.deliveryId} /> : null}
      </Dialog>
    </>
  );
}
