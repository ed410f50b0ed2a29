"use client";

import type { ApiTokenSummary } from "@clinsign/contracts";
import { Badge, Button, Card, ConfirmDialog, EmptyState, Skeleton, Table, type TableColumn } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./tokens.module.css";
import { LoadFailed } from "../../components/LoadFailed";
import type { LoadingQuery } from "../../components/QueryState";

/** The organization's API tokens, and revoking one after a confirmation. */
export function TokenList({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const [toRevoke, setToRevoke] = useState<ApiTokenSummary | null>(null);

  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: (_result, { id }) => {
        const name = tokens.data?.find((token) => token.id === id)?.name ?? "";
        onAnnounce(format(t.tokens.revokedAnnouncement, { name }));
        setToRevoke(null);
        void queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
      },
    }),
  );

  const columns = tokenColumns(t, clinic, (token) => {
    revoke.reset();
    setToRevoke(token);
  });

  return (
    <Card title={t.tokens.listTitle} description={clinic.note} flush>
      <TokenListBody tokens={tokens} columns={columns} />
      <ConfirmDialog
        open={toRevoke !== null}
        onCancel={() => setToRevoke(null)}
        onConfirm={() => toRevoke && revoke.mutate({ id: toRevoke.id })}
        title={toRevoke ? format(t.tokens.revokeTitle, { name: toRevoke.name }) : ""}
        description={t.tokens.revokeBody}
        confirmLabel={t.tokens.revokeConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={revoke.isPending}
        error={revoke.error ? describeApiError(readApiError(revoke.error), t) : null}
      />
    </Card>
  );
}

/** The list's columns: name, prefix, when created and last used, status, and Revoke while active. */
function tokenColumns(
  t: Dictionary,
  clinic: ReturnType<typeof useClinicTime>,
  onRevoke: (token: ApiTokenSummary) => void,
): Array<TableColumn<ApiTokenSummary>> {
  return [
    {
      key: "name",
      header: t.tokens.columnName,
      render: (token) => <span className={styles.tokenName}>{token.name}</span>,
    },
    {
      key: "prefix",
      header: t.tokens.columnPrefix,
      render: (token) => <code className={styles.prefix}>{token.prefix}…</code>,
    },
    { key: "created", header: t.tokens.columnCreated, render: (token) => clinic.dateTime(token.createdAt) },
    {
      key: "lastUsed",
      header: t.tokens.columnLastUsed,
      render: (token) => (token.lastUsedAt ? clinic.dateTime(token.lastUsedAt) : t.common.never),
    },
    {
      key: "status",
      header: t.tokens.columnStatus,
      render: (token) =>
        token.revokedAt ? (
          <span title={format(t.tokens.revokedAt, { date: clinic.dateTime(token.revokedAt) })}>
            <Badge tone="neutral">{t.tokens.revoked}</Badge>
          </span>
        ) : (
          <Badge tone="success">{t.tokens.active}</Badge>
        ),
    },
    {
      key: "actions",
      header: t.tokens.columnActions,
      end: true,
      render: (token) =>
        token.revokedAt ? null : (
          <Button
            variant="danger-outline"
            size="small"
            aria-label={format(t.tokens.revokeLabel, { name: token.name })}
            onClick={() => onRevoke(token)}
          >
            {t.tokens.revoke}
          </Button>
        ),
    },
  ];
}

/** Loading, failed, none yet, or the table of tokens (revoked ones muted). */
function TokenListBody({
  tokens,
  columns,
}: {
  tokens: LoadingQuery<ApiTokenSummary[]>;
  columns: Array<TableColumn<ApiTokenSummary>>;
}) {
  const { t } = useI18n();
  if (tokens.isPending)
    return (
      <div className="cs-card__body">
        <Skeleton label={t.common.loading} lines={3} />
      </div>
    );
  if (tokens.error || tokens.data === undefined)
    return <LoadFailed query={tokens} className="cs-card__body cs-stack" />;
  if (tokens.data.length === 0)
    return <EmptyState icon="key" level={3} title={t.tokens.emptyTitle} description={t.tokens.emptyBody} />;
  return (
    <div className={styles.tableBody}>
      <Table
        caption={t.tokens.listCaption}
        columns={columns}
        rows={tokens.data}
        rowKey={(token) => token.id}
        rowMuted={(token) => token.revokedAt !== null}
      />
    </div>
  );
}
