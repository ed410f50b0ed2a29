"use client";

import type { StaffInviteItem } from "@clinsign/contracts";
import { Badge, Button, EmptyState, keysetPaging, type TableColumn, useStaffList } from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { ListCard } from "../../components/lists/ListCard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { CardError } from "../../components/CardError";
import { describeUsersError } from "./users-rules";
import styles from "./users.module.css";

/** The open invitations: whom, which role, until when; revoking one. */
export function InvitesList({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const can = useCan();
  const queryClient = useQueryClient();
  const list = useStaffList(useInfiniteQuery(trpc.users.invites.infiniteQueryOptions({ limit: 20 }, keysetPaging)));
  const [error, setError] = useState<string | null>(null);
  const revoke = useMutation(
    trpc.users.revokeInvite.mutationOptions({
      onSuccess: (_result, { id }) => {
        onAnnounce(format(t.users.inviteRevoked, { email: list.rows.find((row) => row.id === id)?.email ?? "" }));
        void queryClient.invalidateQueries({ queryKey: trpc.users.invites.pathKey() });
      },
      onError: (e) => setError(describeUsersError(readApiError(e), t)),
    }),
  );
  const columns: TableColumn<StaffInviteItem>[] = [
    { key: "email", header: t.users.columnEmail, render: (row) => <span className={styles.name}>{row.email}</span> },
    { key: "role", header: t.users.columnRole, render: (row) => t.roles[row.role] },
    {
      key: "status",
      header: t.users.columnStatus,
      render: (row) =>
        row.expired ? <Badge tone="neutral">{t.users.expired}</Badge> : <Badge tone="accent">{t.users.pending}</Badge>,
    },
    { key: "expires", header: t.users.columnExpires, render: (row) => clinic.dateTime(row.expiresAt) },
    {
      key: "actions",
      header: t.users.columnActions,
      end: true,
      render: (row) =>
        can("users.revokeInvite") ? (
          <Button
            size="small"
            variant="danger-outline"
            aria-label={format(t.users.revokeInviteLabel, { email: row.email })}
            busy={revoke.isPending && revoke.variables?.id === row.id}
            onClick={() => revoke.mutate({ id: row.id })}
          >
            {t.users.revokeInvite}
          </Button>
        ) : null,
    },
  ];
  return (
    <ListCard
      title={t.users.invitesTitle}
      description={clinic.note}
      toolbar={<CardError message={error} />}
      list={list}
      caption={t.users.invitesCaption}
      columns={columns}
      rowKey={(row) => row.id}
      empty={
        <EmptyState icon="send" level={3} title={t.users.invitesEmptyTitle} description={t.users.invitesEmptyBody} />
      }
      labels={{ shown: t.users.shown, loadMore: t.users.loadMore }}
      skeletonLines={2}
    />
  );
}
