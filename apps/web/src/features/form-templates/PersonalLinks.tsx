"use client";

import type { CreatedSession, PersonalLink, Template } from "@clinsign/contracts";
import {
  Button,
  Card,
  CopyField,
  EmptyState,
  keysetPaging,
  Notice,
  SelectField,
  TextField,
  useStaffList,
  type TableColumn,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { ListCard } from "../../components/lists/ListCard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { webhookUrlMessage } from "../settings/settings-form";
import { typedList } from "./embed-snippet";

/** How long a new personal link stays valid, in minutes: the choices staff get. */
const LIFETIMES = [60, 24 * 60, 7 * 24 * 60, 30 * 24 * 60] as const;

/**
 * Personal links of a template: made for one known patient (their answers live with the link
 * only), shown once at creation, listed with case number and expiry, and ended at any time.
 * Where answers are sent besides the organization's webhooks (another webhook URL, e-mail) is an
 * administrator's choice, so only they see those fields.
 */
export function PersonalLinks({ template }: { template: Template }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const e = t.formTemplates.embed;
  const admin = canAdminister(useSession());
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [rnummer, setRnummer] = useState("");
  const [webhookUrl, setWebhookUrl] = useState("");
  const [redirectUrl, setRedirectUrl] = useState("");
  const [emailTo, setEmailTo] = useState("");
  const [origins, setOrigins] = useState("");
  const [lifetime, setLifetime] = useState<number>(24 * 60);
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
  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };

  function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const emails = typedList(emailTo);
    create.mutate({
      templateIdentifier: template.identifier,
      config: {
        ...(rnummer.trim() && { rnummer: rnummer.trim() }),
        ...(webhookUrl.trim() && { webhookUrl: webhookUrl.trim() }),
        ...(redirectUrl.trim() && { redirectUrl: redirectUrl.trim() }),
        ...(emails.length > 0 && { emailTo: emails }),
        ...(typedList(origins).length > 0 && { allowedOrigins: typedList(origins) }),
        expiresInMinutes: lifetime,
      },
    });
  }

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
          onClick={() => revoke.mutate({ id: link.id })}
          busy={revoke.isPending && revoke.variables?.id === link.id}
          aria-label={format(e.revokeNamed, { name: link.rnummer ?? clinic.dateTime(link.createdAt) })}
        >
          {e.revoke}
        </Button>
      ),
    },
  ];

  return (
    <>
      <Card title={e.personalTitle} description={e.personalDescription}>
        <form className="cs-stack" onSubmit={submit} noValidate aria-label={e.personalTitle}>
          <TextField
            label={e.rnummer}
            value={rnummer}
            onChange={(event) => setRnummer(event.target.value)}
            error={fieldErrors.get("rnummer")}
            autoComplete="off"
          />
          <SelectField
            id="personal-link-lifetime"
            label={e.lifetime}
            options={LIFETIMES.map((minutes) => ({
              value: String(minutes),
              label: e.lifetimes[String(minutes) as keyof typeof e.lifetimes],
            }))}
            value={String(lifetime)}
            onChange={(event) => setLifetime(Number(event.target.value))}
          />
          <TextField
            label={e.redirectUrl}
            type="url"
            value={redirectUrl}
            onChange={(event) => setRedirectUrl(event.target.value)}
            error={fieldErrors.get("redirectUrl")}
          />
          <TextField
            label={e.allowedOrigins}
            hint={e.personalOriginsHint}
            value={origins}
            onChange={(event) => setOrigins(event.target.value)}
            error={fieldErrors.get("allowedOrigins")}
          />
          {admin ? (
            <>
              <TextField
                label={e.webhookUrl}
                type="url"
                value={webhookUrl}
                onChange={(event) => setWebhookUrl(event.target.value)}
                error={fieldErrors.get("webhookUrl")}
              />
              <TextField
                label={e.emailTo}
                type="email"
                value={emailTo}
                onChange={(event) => setEmailTo(event.target.value)}
                error={fieldErrors.get("emailTo")}
              />
            </>
          ) : (
            // Where the answers go is an administrator's choice (core/forms/destinations.ts refuses it from the staff role).
            <p className="cs-hint">{e.destinationsAdminOnly}</p>
          )}
          {create.isError && fieldErrors.size === 0 ? (
            <Notice tone="danger" role="alert">
              {describeApiError(readApiError(create.error), t)}
            </Notice>
          ) : null}
          <div>
            <Button type="submit" variant="primary" busy={create.isPending}>
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
    </>
  );
}
