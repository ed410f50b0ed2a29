"use client";

import type { Role, StaffUserItem } from "@clinsign/contracts";
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  EmptyState,
  keysetPaging,
  type TableColumn,
  useStaffList,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useCan, useSession } from "../../components/admin-shell/SessionContext";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { ListBody } from "../../components/lists/ListCard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { CardError } from "../../components/CardError";
import { RoleSelect } from "./RoleSelect";
import { assignableRoles, describeUsersError } from "./users-rules";
import styles from "./users.module.css";

const nameOf = (user: StaffUserItem) => user.name || user.email;

/** What the members table does to a row, and which row is busy. */
interface MemberActions {
  changingRole: boolean;
  onChangeRole(user: StaffUserItem, role: Role): void;
  reactivatingId: string | null;
  onReactivate(user: StaffUserItem): void;
  onDeactivate(user: StaffUserItem): void;
}

/** The members: role changes in place, deactivating (asked in a dialog) and reactivating. */
export function MembersList({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useStaffList(useInfiniteQuery(trpc.users.list.infiniteQueryOptions({ limit: 50 }, keysetPaging)));
  const [error, setError] = useState<string | null>(null);
  const [toDeactivate, setToDeactivate] = useState<StaffUserItem | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() });
  const onError = (e: unknown) => setError(describeUsersError(readApiError(e), t));
  const announceRowChange = (userId: string, text: string, values: Record<string, string> = {}) => {
    const user = list.rows.find((row) => row.id === userId);
    onAnnounce(format(text, { name: user ? nameOf(user) : "", ...values }));
    setError(null);
    void refresh();
  };

  const changeRole = useMutation(
    trpc.users.changeRole.mutationOptions({
      onSuccess: (_result, input) =>
        announceRowChange(input.userId, t.users.roleChanged, { role: t.roles[input.role] }),
      onError: (e) => {
        onError(e);
        void refresh();
      },
    }),
  );
  const deactivate = useMutation(
    trpc.users.deactivate.mutationOptions({
      onSuccess: () => {
        if (toDeactivate) onAnnounce(format(t.users.deactivatedAnnouncement, { name: nameOf(toDeactivate) }));
        setToDeactivate(null);
        setError(null);
        void refresh();
      },
    }),
  );
  const reactivate = useMutation(
    trpc.users.reactivate.mutationOptions({
      onSuccess: (_result, input) => announceRowChange(input.userId, t.users.reactivatedAnnouncement),
      onError,
    }),
  );

  const columns = useMemberColumns({
    changingRole: changeRole.isPending,
    onChangeRole: (user, role) => changeRole.mutate({ userId: user.id, role }),
    reactivatingId: reactivate.isPending ? (reactivate.variables?.userId ?? null) : null,
    onReactivate: (user) => reactivate.mutate({ userId: user.id }),
    onDeactivate: (user) => {
      deactivate.reset();
      setToDeactivate(user);
    },
  });

  return (
    <Card title={t.users.listTitle} description={clinic.note} flush>
      <CardError message={error} />
      <ListBody
        list={list}
        caption={t.users.listCaption}
        columns={columns}
        rowKey={(user) => user.id}
        empty={<EmptyState icon="users" level={3} title={t.users.emptyTitle} description={t.users.emptyBody} />}
        labels={{ shown: t.users.shown, loadMore: t.users.loadMore }}
      />
      <DeactivateDialog
        member={toDeactivate}
        busy={deactivate.isPending}
        failure={deactivate.error}
        onCancel={() => setToDeactivate(null)}
        onConfirm={(member) => deactivate.mutate({ userId: member.id })}
      />
    </Card>
  );
}

/** The members table's columns: who, role (a picker where the signed-in member may change it), state, since, actions. */
function useMemberColumns(actions: MemberActions): TableColumn<StaffUserItem>[] {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const me = useSession();
  const can = useCan();
  return [
    {
      key: "name",
      header: t.users.columnName,
      // One block, so the stacked (phone) table keeps the address under the name.
      render: (user) => (
        <div>
          <span className={styles.name}>
            {user.name || user.email}
            {user.id === me.user.id ? ` (${t.users.you})` : ""}
          </span>
          {user.name ? <span className={styles.email}>{user.email}</span> : null}
        </div>
      ),
    },
    {
      key: "role",
      header: t.users.columnRole,
      render: (user) =>
        can("users.changeRole") && user.id !== me.user.id && (me.role === "owner" || user.role !== "owner") ? (
          <RoleSelect
            id={`role-${user.id}`}
            hideLabel
            label={format(t.users.roleFor, { name: nameOf(user) })}
            value={user.role}
            options={assignableRoles(me.role)}
            disabled={actions.changingRole}
            onChange={(role) => actions.onChangeRole(user, role)}
          />
        ) : (
          t.roles[user.role]
        ),
    },
    {
      key: "status",
      header: t.users.columnStatus,
      render: (user) =>
        user.deactivatedAt ? (
          <Badge tone="neutral">{t.users.deactivated}</Badge>
        ) : (
          <Badge tone="success">{t.users.active}</Badge>
        ),
    },
    { key: "since", header: t.users.columnSince, render: (user) => clinic.dateTime(user.createdAt) },
    {
      key: "actions",
      header: t.users.columnActions,
      end: true,
      render: (user) => <MemberActionButton user={user} actions={actions} />,
    },
  ];
}

/**
 * Deactivate, or Reactivate for a deactivated member; nothing for oneself, nor for an owner
 * unless the signed-in member is one.
 */
function MemberActionButton({ user, actions }: { user: StaffUserItem; actions: MemberActions }) {
  const { t } = useI18n();
  const me = useSession();
  const can = useCan();
  if (user.id === me.user.id || (user.role === "owner" && me.role !== "owner")) return null;
  if (user.deactivatedAt)
    return can("users.reactivate") ? (
      <Button
        size="small"
        aria-label={format(t.users.reactivateLabel, { name: nameOf(user) })}
        busy={actions.reactivatingId === user.id}
        onClick={() => actions.onReactivate(user)}
      >
        {t.users.reactivate}
      </Button>
    ) : null;
  return can("users.deactivate") ? (
    <Button
      size="small"
      variant="danger-outline"
      aria-label={format(t.users.deactivateLabel, { name: nameOf(user) })}
      onClick={() => actions.onDeactivate(user)}
    >
      {t.users.deactivate}
    </Button>
  ) : null;
}

/** Asks once more before deactivating `member` (closed while null); a refusal shows in the dialog. */
function DeactivateDialog({
  member,
  busy,
  failure,
  onCancel,
  onConfirm,
}: {
  member: StaffUserItem | null;
  busy: boolean;
  failure: unknown;
  onCancel(): void;
  onConfirm(member: StaffUserItem): void;
}) {
  const { t } = useI18n();
  return (
    <ConfirmDialog
      open={member !== null}
      onCancel={onCancel}
      onConfirm={() => member && onConfirm(member)}
      title={member ? format(t.users.deactivateTitle, { name: nameOf(member) }) : ""}
      description={t.users.deactivateBody}
      confirmLabel={t.users.deactivateConfirm}
      cancelLabel={t.common.cancel}
      closeLabel={t.common.close}
      busy={busy}
      error={failure ? describeUsersError(readApiError(failure), t) : null}
    />
  );
}
