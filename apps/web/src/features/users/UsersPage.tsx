"use client";

import { inviteUserInput, roles, type Role, type StaffInviteItem, type StaffUserItem } from "@clinsign/contracts";
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  CopyField,
  EmptyState,
  keysetPaging,
  LiveRegion,
  Notice,
  SelectField,
  type TableColumn,
  TextField,
  useAnnouncement,
  useStaffList,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState, type FormEvent } from "react";
import { useCan, useSession } from "../../components/admin-shell/SessionContext";
import { ListBody, ListCard } from "../../components/lists/ListCard";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError, translateValidationMessage, type ApiError } from "../../trpc/errors";
import styles from "./users.module.css";

/** A refusal of the Users page in words: the rules the service keeps beyond the table. */
function describeUsersError(error: ApiError, t: Dictionary): string {
  const reason = error.details.reason;
  if (reason === "last_owner") return t.users.lastOwner;
  if (reason === "owner_required") return t.users.ownerRequired;
  if (reason === "already_member") return t.users.alreadyMember;
  return describeApiError(error, t);
}

/** Roles the signed-in member may hand out: only owners make owners. */
function assignableRoles(me: Role): readonly Role[] {
  return me === "owner" ? roles : roles.filter((role) => role !== "owner");
}

/** Users (owners and admins): invite, the open invitations, the members with their role and state. */
export function UsersPage() {
  const { t } = useI18n();
  const can = useCan();
  const [announcement, setAnnouncement] = useAnnouncement();

  return (
    <>
      <PageHeader title={t.users.pageTitle} description={t.users.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />
        {can("users.list") ? (
          <>
            <Notice tone="info" title={t.users.rolesTitle}>
              {t.users.rolesBody}
            </Notice>
            {can("users.invite") ? <InviteForm onAnnounce={setAnnouncement} /> : null}
            <InvitesList onAnnounce={setAnnouncement} />
            <MembersList onAnnounce={setAnnouncement} />
          </>
        ) : (
          <Notice tone="info" title={t.users.adminOnlyTitle}>
            {t.users.adminOnlyBody}
          </Notice>
        )}
      </div>
    </>
  );
}

function RoleSelect({
  id,
  label,
  value,
  options,
  disabled,
  onChange,
  className,
  hideLabel,
}: {
  id: string;
  label: string;
  value: Role;
  options: readonly Role[];
  disabled?: boolean;
  onChange(role: Role): void;
  className?: string;
  hideLabel?: boolean;
}) {
  const { t } = useI18n();
  return (
    <SelectField
      id={id}
      label={label}
      hideLabel={hideLabel}
      className={className}
      selectClassName={styles.roleSelect}
      value={value}
      disabled={disabled}
      onChange={(event) => onChange(event.currentTarget.value as Role)}
      options={(options.includes(value) ? options : [value, ...options]).map((role) => ({
        value: role,
        label: t.roles[role],
        disabled: !options.includes(role),
      }))}
    />
  );
}

function InviteForm({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const me = useSession();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("staff");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  // Without a mail server the link is shown here, this once: nothing else will reach the colleague.
  const [handOver, setHandOver] = useState<{ email: string; link: string } | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const roleId = useId();

  const invite = useMutation(
    trpc.users.invite.mutationOptions({
      onSuccess: (result, input) => {
        const link = result.delivery === "outbox" ? result.link : null;
        setHandOver(link ? { email: input.email, link } : null);
        onAnnounce(format(link ? t.users.invitedNoMail : t.users.invited, { email: input.email }));
        setEmail("");
        void queryClient.invalidateQueries({ queryKey: trpc.users.invites.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.messages.list.pathKey() });
      },
      onError: (error) => {
        const apiError = readApiError(error);
        const field = apiError.fieldErrors.find((issue) => issue.key === "email");
        if (field) {
          setEmailError(translateValidationMessage(field.message, t));
          emailRef.current?.focus();
        } else setFormError(describeUsersError(apiError, t));
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const parsed = inviteUserInput.safeParse({ email, role });
    if (!parsed.success) {
      setEmailError(t.validation.email);
      emailRef.current?.focus();
      return;
    }
    setEmailError(null);
    invite.mutate(parsed.data);
  }

  return (
    <Card title={t.users.inviteTitle} description={t.users.inviteDescription}>
      <form className={styles.inviteForm} onSubmit={onSubmit} noValidate>
        <TextField
          ref={emailRef}
          className={styles.inviteEmail}
          label={t.users.emailLabel}
          name="inviteEmail"
          type="email"
          inputMode="email"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          value={email}
          error={emailError ?? undefined}
          onChange={(event) => setEmail(event.currentTarget.value)}
        />
        <RoleSelect
          id={roleId}
          className={styles.inviteRole}
          label={t.users.roleLabel}
          value={role}
          options={assignableRoles(me.role)}
          onChange={setRole}
        />
        <Button type="submit" variant="primary" className={styles.inviteButton} busy={invite.isPending}>
          {t.users.invite}
        </Button>
      </form>
      {formError ? (
        <Notice tone="danger" role="alert">
          {formError}
        </Notice>
      ) : null}
      {handOver ? (
        <div className="cs-stack" data-testid="invite-link-shown">
          <Notice tone="warning">{format(t.users.noMailSent, { email: handOver.email })}</Notice>
          <CopyField
            label={format(t.users.inviteLinkLabel, { email: handOver.email })}
            hint={t.users.inviteLinkHint}
            value={handOver.link}
            labels={t.common}
            testId="invite-link"
          />
          <div>
            <Button onClick={() => setHandOver(null)}>{t.users.inviteLinkDone}</Button>
          </div>
        </div>
      ) : null}
    </Card>
  );
}

function InvitesList({ onAnnounce }: { onAnnounce(text: string): void }) {
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

function MembersList({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const me = useSession();
  const can = useCan();
  const queryClient = useQueryClient();
  const list = useStaffList(useInfiniteQuery(trpc.users.list.infiniteQueryOptions({ limit: 50 }, keysetPaging)));
  const [error, setError] = useState<string | null>(null);
  const [toDeactivate, setToDeactivate] = useState<StaffUserItem | null>(null);
  const nameOf = (user: StaffUserItem) => user.name || user.email;
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.list.pathKey() });
  const onError = (e: unknown) => setError(describeUsersError(readApiError(e), t));

  const changeRole = useMutation(
    trpc.users.changeRole.mutationOptions({
      onSuccess: (_result, input) => {
        const user = list.rows.find((row) => row.id === input.userId);
        onAnnounce(format(t.users.roleChanged, { name: user ? nameOf(user) : "", role: t.roles[input.role] }));
        setError(null);
        void refresh();
      },
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
      onSuccess: (_result, input) => {
        const user = list.rows.find((row) => row.id === input.userId);
        onAnnounce(format(t.users.reactivatedAnnouncement, { name: user ? nameOf(user) : "" }));
        setError(null);
        void refresh();
      },
      onError,
    }),
  );

  const columns: TableColumn<StaffUserItem>[] = [
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
            disabled={changeRole.isPending}
            onChange={(role) => changeRole.mutate({ userId: user.id, role })}
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
      render: (user) => {
        if (user.id === me.user.id || (user.role === "owner" && me.role !== "owner")) return null;
        if (user.deactivatedAt)
          return can("users.reactivate") ? (
            <Button
              size="small"
              aria-label={format(t.users.reactivateLabel, { name: nameOf(user) })}
              busy={reactivate.isPending && reactivate.variables?.userId === user.id}
              onClick={() => reactivate.mutate({ userId: user.id })}
            >
              {t.users.reactivate}
            </Button>
          ) : null;
        return can("users.deactivate") ? (
          <Button
            size="small"
            variant="danger-outline"
            aria-label={format(t.users.deactivateLabel, { name: nameOf(user) })}
            onClick={() => {
              deactivate.reset();
              setToDeactivate(user);
            }}
          >
            {t.users.deactivate}
          </Button>
        ) : null;
      },
    },
  ];

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
      <ConfirmDialog
        open={toDeactivate !== null}
        onCancel={() => setToDeactivate(null)}
        onConfirm={() => toDeactivate && deactivate.mutate({ userId: toDeactivate.id })}
        title={toDeactivate ? format(t.users.deactivateTitle, { name: nameOf(toDeactivate) }) : ""}
        description={t.users.deactivateBody}
        confirmLabel={t.users.deactivateConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={deactivate.isPending}
        error={deactivate.error ? describeUsersError(readApiError(deactivate.error), t) : null}
      />
    </Card>
  );
}

/** A failed action's message at the top of a flush card. */
export function CardError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div className="cs-card__body">
      <Notice tone="danger" role="alert">
        {message}
      </Notice>
    </div>
  );
}
