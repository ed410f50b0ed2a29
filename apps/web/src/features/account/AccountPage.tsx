"use client";

import type { Me, OrganizationSettings, StaffSessionItem } from "@clinsign/contracts";
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  LiveRegion,
  Skeleton,
  Table,
  type TableColumn,
  useAnnouncement,
} from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useSession } from "../../components/admin-shell/SessionContext";
import { LoadFailed } from "../../components/LoadFailed";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { CardError } from "../../components/CardError";
import styles from "../users/users.module.css";

type SessionLifetime = Pick<OrganizationSettings, "staffSessionIdleMinutes" | "staffSessionMaxHours">;

const deviceOf = (staffSession: StaffSessionItem, t: Dictionary) => staffSession.device ?? t.account.unknownDevice;

/** The signed-in member's account: who they are, and their sessions (end one, all others, or every one everywhere). */
export function AccountPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const me = useSession();
  const queryClient = useQueryClient();
  const staffSessions = useQuery(trpc.account.sessions.queryOptions());
  const settings = useQuery(trpc.organization.settings.queryOptions());
  const [announcement, setAnnouncement] = useAnnouncement();
  const [error, setError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.account.sessions.queryKey() });

  const end = useMutation(
    trpc.account.endSession.mutationOptions({
      onSuccess: (_result, { id }) => {
        const staffSession = staffSessions.data?.items.find((s) => s.id === id);
        if (staffSession?.current) return window.location.assign("/login?reason=signed-out");
        setAnnouncement(format(t.account.ended, { device: staffSession ? deviceOf(staffSession, t) : "" }));
        setError(null);
        void refresh();
      },
      onError: (e) => setError(describeApiError(readApiError(e), t)),
    }),
  );
  const endOthers = useMutation(
    trpc.account.endOtherSessions.mutationOptions({
      onSuccess: ({ ended }) => {
        setAnnouncement(format(t.account.endedOthers, { count: String(ended) }));
        setError(null);
        void refresh();
      },
      onError: (e) => setError(describeApiError(readApiError(e), t)),
    }),
  );
  const columns = useStaffSessionColumns(end.isPending ? (end.variables?.id ?? null) : null, (id) =>
    end.mutate({ id }),
  );

  let body;
  if (staffSessions.isPending)
    body = (
      <div className="cs-card__body">
        <Skeleton label={t.common.loading} lines={2} />
      </div>
    );
  else if (staffSessions.error) body = <LoadFailed query={staffSessions} className="cs-card__body cs-stack" />;
  else
    body = (
      <StaffSessionsBody
        items={staffSessions.data.items}
        columns={columns}
        lifetime={settings.data}
        endingOthers={endOthers.isPending}
        onEndOthers={() => endOthers.mutate()}
      />
    );

  return (
    <>
      <PageHeader title={t.account.pageTitle} description={t.account.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />
        <ProfileCard me={me} />
        <Card title={t.account.sessionsTitle} description={`${t.account.sessionsDescription} ${clinic.note}`} flush>
          <CardError message={error} />
          {body}
        </Card>
      </div>
    </>
  );
}

/** Who is signed in: name, address and role in this organization. */
function ProfileCard({ me }: { me: Me }) {
  const { t } = useI18n();
  return (
    <Card title={t.account.profileTitle}>
      <dl className={`cs-stack ${styles.profile}`}>
        <div>
          <dt className="cs-hint">{t.users.columnName}</dt>
          <dd className={styles.name}>{me.user.name || me.user.email}</dd>
        </div>
        <div>
          <dt className="cs-hint">{t.users.emailLabel}</dt>
          <dd>{me.user.email}</dd>
        </div>
        <div>
          <dt className="cs-hint">{t.users.roleLabel}</dt>
          <dd>{t.roles[me.role]}</dd>
        </div>
      </dl>
    </Card>
  );
}

/** The sessions table's columns: device, address, since, last seen, and ending one (`endingId` is busy). */
function useStaffSessionColumns(endingId: string | null, onEnd: (id: string) => void): TableColumn<StaffSessionItem>[] {
  const { t } = useI18n();
  const clinic = useClinicTime();
  return [
    {
      key: "device",
      header: t.account.columnDevice,
      render: (staffSession) => (
        <>
          <span className={styles.name} title={staffSession.userAgent ?? undefined}>
            {deviceOf(staffSession, t)}
          </span>{" "}
          {staffSession.current ? <Badge tone="success">{t.account.current}</Badge> : null}
        </>
      ),
    },
    { key: "ip", header: t.account.columnAddress, render: (staffSession) => staffSession.ip ?? "—" },
    {
      key: "created",
      header: t.account.columnCreated,
      render: (staffSession) => clinic.dateTime(staffSession.createdAt),
    },
    {
      key: "lastSeen",
      header: t.account.columnLastSeen,
      render: (staffSession) => clinic.dateTime(staffSession.lastSeenAt),
    },
    {
      key: "actions",
      header: t.account.columnActions,
      end: true,
      render: (staffSession) => (
        <Button
          size="small"
          variant="danger-outline"
          busy={endingId === staffSession.id}
          onClick={() => onEnd(staffSession.id)}
        >
          {/* The visible word first, then which session (for screen readers): the name says what it shows. */}
          {staffSession.current ? t.shell.logout : t.account.end}
          <span className="cs-visually-hidden">
            {" "}
            {format(staffSession.current ? t.account.logoutHidden : t.account.endHidden, {
              device: deviceOf(staffSession, t),
            })}
          </span>
        </Button>
      ),
    },
  ];
}

/** The loaded sessions: the table, ending the others or every one, and how long a session lasts. */
function StaffSessionsBody({
  items,
  columns,
  lifetime,
  endingOthers,
  onEndOthers,
}: {
  items: StaffSessionItem[];
  columns: TableColumn<StaffSessionItem>[];
  lifetime: SessionLifetime | undefined;
  endingOthers: boolean;
  onEndOthers: () => void;
}) {
  const { t } = useI18n();
  const others = items.filter((s) => !s.current).length;
  return (
    <>
      <div className="cs-card__body">
        <Table caption={t.account.sessionsCaption} columns={columns} rows={items} rowKey={(s) => s.id} />
      </div>
      <div className="cs-card__body cs-stack">
        {others > 0 ? null : <p className="cs-hint">{t.account.noOthers}</p>}
        <div className="cs-row">
          {others > 0 ? (
            <Button variant="danger-outline" busy={endingOthers} onClick={onEndOthers}>
              {t.account.endOthers}
            </Button>
          ) : null}
          <EndAllSessions />
        </div>
        {lifetime ? (
          <p className="cs-hint">
            {format(t.account.lifetime, {
              idle: String(lifetime.staffSessionIdleMinutes),
              max: String(lifetime.staffSessionMaxHours),
            })}
          </p>
        ) : null}
      </div>
    </>
  );
}

/**
 * Ends every staff session of the account in every organization, this browser's included: asked
 * once more in a dialog, since it signs the person out here too.
 */
function EndAllSessions() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const endAll = useMutation(
    trpc.account.endAllSessions.mutationOptions({
      onSuccess: () => window.location.assign("/login?reason=signed-out"),
    }),
  );
  const close = () => {
    setOpen(false);
    endAll.reset();
  };
  return (
    <>
      <Button variant="danger-outline" onClick={() => setOpen(true)}>
        {t.account.endAll}
      </Button>
      <ConfirmDialog
        open={open}
        onCancel={close}
        onConfirm={() => endAll.mutate()}
        title={t.account.endAllTitle}
        description={t.account.endAllBody}
        confirmLabel={t.account.endAllConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={endAll.isPending || endAll.isSuccess}
        error={endAll.error ? describeApiError(readApiError(endAll.error), t) : null}
      />
    </>
  );
}
