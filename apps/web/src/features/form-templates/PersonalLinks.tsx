"use client";

import type { CreatedSession, PersonalLink, Template } from "@clinsign/contracts";
import {
  Button,
  Card,
  CopyField,
  EmptyState,
  keysetPaging,
  SelectField,
  TextField,
  useStaffList,
  type StaffList,
  type TableColumn,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { ListCard } from "../../components/lists/ListCard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { webhookUrlMessage } from "../settings/settings-form";
import { typedList } from "./embed-snippet";

/** How long a new personal link stays valid, in minutes: the choices staff get. */
const LIFETIMES = [60, 24 * 60, 7 * 24 * 60, 30 * 24 * 60] as const;

/** What staff fill in for a new personal link; empty texts are left out of the request. */
interface LinkDraft {
  rnummer: string;
  webhookUrl: string;
  redirectUrl: string;
  emailTo: string;
  origins: string;
  lifetime: number;
}
type LinkText = Exclude<keyof LinkDraft, "lifetime">;

const EMPTY_DRAFT: LinkDraft = {
  rnummer: "",
  webhookUrl: "",
  redirectUrl: "",
  emailTo: "",
  origins: "",
  lifetime: 24 * 60,
};

/**
 * Personal links of a template: made for one known patient (their answers live with the link
 * only), shown once at creation, listed with case number and expiry, and ended at any time.
 * Where answers are sent besides the organization's webhooks (another webhook URL, e-mail) is an
 * administrator's choice, so only they see those fields.
 */
export function PersonalLinks({ template }: { template: Template }) {
  const { t } = useI18n();
  const e = t.formTemplates.embed;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<LinkDraft>(EMPTY_DRAFT);
  const [created, setCreated] = useState<CreatedSession | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const listInput = { templateIdentifier: template.identifier, limit: 20 };
  const links = useStaffList(useInfiniteQuery(trpc.sessions.list.infiniteQueryOptions(listInput, keysetPaging)));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.sessions.list.infiniteQueryKey(listInput) });
  const create = useMutation(
    trpc.sessions.create.mutationOptions({
      onSuccess: (embedSession) => {
        setCreated(embedSession);
        void refresh();
      },
    }),
  );
  const revoke = useMutation(
    trpc.sessions.revoke.mutationOptions({
      onSuccess: () => {
        setAnnouncement(e.revoked);
        void refresh();
      },
    }),
  );
  const fieldErrors = new Map(
    readApiError(create.error).fieldErrors.map((issue) => [
      issue.key.replace(/^config\./, "").replace(/\.\d+$/, ""),
      (issue.key === "config.webhookUrl" && webhookUrlMessage(issue.message, t)) || issue.message,
    ]),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    create.mutate({ templateIdentifier: template.identifier, config: linkConfig(draft) });
  }

  return (
    <>
      <PersonalLinkForm
        draft={draft}
        onChange={(change) => setDraft((current) => ({ ...current, ...change }))}
        fieldErrors={fieldErrors}
        failure={fieldErrors.size === 0 ? create.error : null}
        busy={create.isPending}
        created={created}
        onSubmit={submit}
      />
      <ActiveLinks
        links={links}
        announcement={announcement}
        revoking={revoke.isPending ? revoke.variables?.id : undefined}
        onRevoke={(link) => revoke.mutate({ id: link.id })}
      />
    </>
  );
}

/** The link's settings as the API takes them: trimmed, lists split, empty ones left out. */
function linkConfig(draft: LinkDraft) {
  const emails = typedList(draft.emailTo);
  return {
    ...(draft.rnummer.trim() && { rnummer: draft.rnummer.trim() }),
    ...(draft.webhookUrl.trim() && { webhookUrl: draft.webhookUrl.trim() }),
    ...(draft.redirectUrl.trim() && { redirectUrl: draft.redirectUrl.trim() }),
    ...(emails.length > 0 && { emailTo: emails }),
    ...(typedList(draft.origins).length > 0 && { allowedOrigins: typedList(draft.origins) }),
    expiresInMinutes: draft.lifetime,
  };
}

/** The "new personal link" form, and the new link once (it is not shown again). */
function PersonalLinkForm({
  draft,
  onChange,
  fieldErrors,
  failure,
  busy,
  created,
  onSubmit,
}: {
  draft: LinkDraft;
  onChange(change: Partial<LinkDraft>): void;
  fieldErrors: ReadonlyMap<string, string>;
  /** What went wrong when no input shows it. */
  failure: unknown;
  busy: boolean;
  created: CreatedSession | null;
  onSubmit(event: FormEvent): void;
}) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const e = t.formTemplates.embed;
  const admin = canAdminister(useSession());
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  /** A text input's value, its change, and the server's message on it. */
  const bind = (key: LinkText, errorKey: string = key) => ({
    value: draft[key],
    onChange: (event: ChangeEvent<HTMLInputElement>) => onChange({ [key]: event.target.value }),
    error: fieldErrors.get(errorKey),
  });
  return (
    <Card title={e.personalTitle} description={e.personalDescription}>
      <form className="cs-stack" onSubmit={onSubmit} noValidate aria-label={e.personalTitle}>
        <TextField label={e.rnummer} {...bind("rnummer")} autoComplete="off" />
        <SelectField
          id="personal-link-lifetime"
          label={e.lifetime}
          options={LIFETIMES.map((minutes) => ({
            value: String(minutes),
            label: e.lifetimes[String(minutes) as keyof typeof e.lifetimes],
          }))}
          value={String(draft.lifetime)}
          onChange={(event) => onChange({ lifetime: Number(event.target.value) })}
        />
        <TextField label={e.redirectUrl} type="url" {...bind("redirectUrl")} />
        <TextField label={e.allowedOrigins} hint={e.personalOriginsHint} {...bind("origins", "allowedOrigins")} />
        {admin ? (
          <>
            <TextField label={e.webhookUrl} type="url" {...bind("webhookUrl")} />
            <TextField label={e.emailTo} type="email" {...bind("emailTo")} />
          </>
        ) : (
          // Where the answers go is an administrator's choice (core/forms/destinations.ts refuses it from the staff role).
          <p className="cs-hint">{e.destinationsAdminOnly}</p>
        )}
        <ErrorNotice error={failure} />
        <div>
          <Button type="submit" variant="primary" busy={busy}>
            {e.create}
          </Button>
        </div>
        {created ? (
          <div className="cs-stack" role="status">
            <CopyField
              label={e.link}
              value={created.embedUrl}
              labels={copyLabels}
              hint={`${format(e.expires, { date: clinic.dateTime(created.expiresAt) })} ${e.linkOnce}`}
              testId="embed-link"
            />
          </div>
        ) : null}
      </form>
    </Card>
  );
}

/** The template's links still valid, each with an End button; `revoking` is the one being ended. */
function ActiveLinks({
  links,
  announcement,
  revoking,
  onRevoke,
}: {
  links: StaffList<PersonalLink>;
  announcement: string;
  revoking: string | undefined;
  onRevoke(link: PersonalLink): void;
}) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const e = t.formTemplates.embed;
  const columns: TableColumn<PersonalLink>[] = [
    {
      key: "case",
      header: e.caseNumber,
      render: (link) => link.rnummer ?? <span className="cs-hint">{e.noCaseNumber}</span>,
    },
    { key: "created", header: e.createdAt, render: (link) => clinic.dateTime(link.createdAt) },
    { key: "expires", header: e.validUntil, render: (link) => clinic.dateTime(link.expiresAt) },
    {
      key: "actions",
      header: e.actions,
      end: true,
      render: (link) => (
        <Button
          size="small"
          onClick={() => onRevoke(link)}
          busy={revoking === link.id}
          aria-label={format(e.revokeNamed, { name: link.rnummer ?? clinic.dateTime(link.createdAt) })}
        >
          {e.revoke}
        </Button>
      ),
    },
  ];
  return (
    <ListCard
      title={e.activeLinks}
      description={`${e.activeLinksHint} ${clinic.note}`}
      toolbar={
        <p className="cs-visually-hidden" role="status">
          {announcement}
        </p>
      }
      list={links}
      caption={e.activeLinks}
      columns={columns}
      rowKey={(link) => link.id}
      labels={{ shown: t.formTemplates.shown, loadMore: t.formTemplates.loadMore }}
      skeletonLines={2}
      empty={<EmptyState title={e.noLinks} level={3} />}
    />
  );
}
