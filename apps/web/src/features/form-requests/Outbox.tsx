"use client";

import type { MessageSummary } from "@clinsign/contracts";
import { Badge, Card, Notice, Skeleton, Table, type TableColumn } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./form-requests.module.css";
import { RevealMessage } from "./RevealMessage";

const OUTBOX_SIZE = 20;

/**
 * The newest SMS and their delivery state. With the outbox provider they are kept here instead of
 * being sent (a demo works without an SMS gateway). Bodies are shown as stored: links and
 * one-time codes are hidden there (core/messaging); an admin may show each one once (RevealMessage).
 */
export function Outbox() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const f = t.formRequestsPage;
  const trpc = useTRPC();
  const outbox = useQuery(trpc.messages.list.queryOptions({ channel: "sms", limit: OUTBOX_SIZE }));
  const providers = useQuery(trpc.messages.providers.queryOptions());
  const rows = outbox.data ?? [];
  // What this install does now decides the description, not what older messages went through.
  const keptHere = providers.data?.sms === "outbox";

  const columns: TableColumn<MessageSummary>[] = [
    { key: "time", header: f.columnTime, render: (m) => clinic.dateTime(m.createdAt) },
    { key: "to", header: f.columnTo, render: (m) => <span className="cs-mono">{m.recipients.join(", ")}</span> },
    {
      key: "message",
      header: f.columnMessage,
      render: (m) => (
        <div className="cs-stack">
          <span className={styles.body}>{m.body}</span>
          <RevealMessage message={m} />
        </div>
      ),
    },
    {
      key: "status",
      header: f.columnStatus,
      render: (m) =>
        m.status === "sent" && m.provider === "outbox" ? (
          <Badge tone="warning">{f.statusKept}</Badge>
        ) : (
          <Badge tone={m.status === "sent" ? "success" : m.status === "failed" ? "danger" : "neutral"}>
            {m.status === "sent" ? f.stateSent : m.status === "failed" ? f.messageFailed : f.messageQueued}
          </Badge>
        ),
    },
  ];
  return (
    <Card
      title={f.outboxTitle}
      description={
        providers.data ? `${keptHere ? f.outboxDescription : f.outboxGatewayDescription} ${clinic.note}` : clinic.note
      }
      flush
    >
      {outbox.isPending ? (
        <div className="cs-card__body">
          <Skeleton label={t.common.loading} lines={3} />
        </div>
      ) : outbox.error ? (
        <div className="cs-card__body">
          <Notice tone="danger">{describeApiError(readApiError(outbox.error), t)}</Notice>
        </div>
      ) : rows.length === 0 ? (
        <p className={`cs-card__body cs-hint ${styles.flat}`}>{f.outboxEmpty}</p>
      ) : (
        <div className="cs-list__table" data-testid="sms-outbox">
          <Table caption={f.outboxCaption} columns={columns} rows={rows} rowKey={(m) => m.id} />
        </div>
      )}
    </Card>
  );
}
