"use client";

import type { SignatureTimelineEvent, SignatureTimelineKind } from "@clinsign/contracts";
import { Badge, type BadgeTone } from "@clinsign/ui";
import { format, type Dictionary } from "../../i18n";
import styles from "./signature-requests.module.css";

type Texts = Dictionary["signatureRequestsPage"];

function kindLabel(kind: SignatureTimelineKind, s: Texts): string {
  const labels: Record<SignatureTimelineKind, string> = {
    created: s.eventCreated,
    opened: s.eventOpened,
    signed: s.eventSigned,
    sealed: s.eventSealed,
    seal_failed: s.eventSealFailed,
    seal_again: s.eventSealAgain,
    retimestamped: s.eventRetimestamped,
    declined: s.eventDeclined,
    expired: s.eventExpired,
    visibility_changed: s.eventVisibilityChanged,
    expiry_changed: s.eventExpiryChanged,
    link_replaced: s.eventLinkReplaced,
    link_viewed: s.eventLinkViewed,
    kiosk_started: s.eventKioskStarted,
    webhook_delivery: s.eventWebhookDelivery,
    reminder_sent: s.eventReminderSent,
    reminder_not_sent: s.eventReminderNotSent,
    staff_notified: s.eventStaffNotified,
  };
  return labels[kind];
}

const noticeKinds: ReadonlySet<SignatureTimelineKind> = new Set([
  "reminder_sent",
  "reminder_not_sent",
  "staff_notified",
]);

/** A reminder's or notice's detail is its channel (`sms`, `email`, `no_channel`): said in the reader's language. */
function detailText(event: SignatureTimelineEvent, s: Texts): string | undefined {
  if (!event.detail || !noticeKinds.has(event.kind)) return event.detail;
  const channels: Record<string, string> = { sms: s.channelSms, email: s.channelEmail, no_channel: s.channelNone };
  return channels[event.detail] ?? event.detail;
}

function actorLabel(actor: string | undefined, s: Texts): string | null {
  const labels: Record<string, string> = {
    api_key: s.actorApiKey,
    session: s.actorSession,
    portal: s.actorPatient,
    signer: s.actorPatient,
    user: s.actorUser,
    system: s.actorSystem,
  };
  return actor ? (labels[actor] ?? actor) : null;
}

const deliveryTones: Record<string, BadgeTone> = { delivered: "success", failed: "danger", pending: "neutral" };

function deliveryLabel(status: string, s: Texts): string {
  const labels: Record<string, string> = {
    delivered: s.deliveryDelivered,
    failed: s.deliveryFailed,
    pending: s.deliveryPending,
  };
  return labels[status] ?? status;
}

/**
 * What happened to a request, oldest first: its own events, staff changes and webhook deliveries.
 * `dateTime` writes each time (the console's: the clinic's clock, useClinicTime).
 */
export function Timeline({
  events,
  s,
  dateTime,
}: {
  events: readonly SignatureTimelineEvent[];
  s: Texts;
  dateTime(iso: string): string;
}) {
  if (events.length === 0) return <p className="cs-hint">{s.timelineEmpty}</p>;
  return (
    <ol className={styles.timeline} aria-label={s.timelineTitle} data-testid="timeline">
      {events.map((event, index) => {
        const actor = actorLabel(event.actorType, s);
        return (
          <li key={`${event.at}-${event.kind}-${index}`} className={styles.event} data-kind={event.kind}>
            <div className={styles.eventHead}>
              <strong>{kindLabel(event.kind, s)}</strong>
              <time className="cs-hint" dateTime={event.at}>
                {dateTime(event.at)}
              </time>
            </div>
            {event.delivery ? (
              <div className={styles.eventBody}>
                <span className="cs-row">
                  <Badge tone={deliveryTones[event.delivery.status] ?? "neutral"}>
                    {deliveryLabel(event.delivery.status, s)}
                  </Badge>
                  <code className="cs-mono">{event.delivery.eventType}</code>
                </span>
                <span className={styles.url}>{event.delivery.url}</span>
                <span className="cs-hint">
                  {format(s.deliveryAttempts, { count: String(event.delivery.attempts) })}
                  {event.delivery.lastStatusCode !== null ? ` · HTTP ${event.delivery.lastStatusCode}` : ""}
                </span>
              </div>
            ) : null}
            {event.detail || actor ? (
              <div className={`${styles.eventBody} cs-hint`}>
                {event.detail ? <span className={styles.detail}>{detailText(event, s)}</span> : null}
                {actor ? <span>{format(s.by, { actor })}</span> : null}
              </div>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
