"use client";

import { auditActorTypes, legacyAuditActorTypes, type AuditActorType } from "@clinsign/contracts";
import { Card, EmptyState, keysetPaging, SelectField, TextField, useStaffList } from "@clinsign/ui";
import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { DownloadButton } from "../../components/DownloadButton";
import { ListBody } from "../../components/lists/ListCard";
import { DateRangeFilter, FilterCard } from "../../components/lists/filters";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { useAuditColumns } from "./audit-columns";
import { ChainVerifyCard } from "./ChainVerifyCard";
import { actorTypeLabel } from "./entry-words";

const FILTER_KEYS = ["action", "template", "actor", "from", "to"] as const;

type AuditFilterForm = ReturnType<typeof useFilterForm<(typeof FILTER_KEYS)[number]>>;

/** The actor filter of a URL: today's word, or an old spelling from a bookmarked link. */
function actorTypeOf(value: string | undefined): AuditActorType | undefined {
  const legacy = legacyAuditActorTypes as Record<string, AuditActorType>;
  return auditActorTypes.find((type) => type === value) ?? (value ? legacy[value] : undefined);
}

/**
 * The audit log: filters in the URL (action, form, actor type, date range), cursor paging, each
 * entry's actor and metadata; verifying the hash chain; CSV export for owners and admins.
 */
export function AuditLogPage() {
  const { t } = useI18n();
  const a = t.auditLogPage;
  const trpc = useTRPC();
  const me = useSession();
  const form = useFilterForm(FILTER_KEYS);
  const { values } = form;

  const filter = {
    action: values.action || undefined,
    templateIdentifier: values.template || undefined,
    actorType: actorTypeOf(values.actor),
    ...createdBetween(values),
  };
  const list = useStaffList(
    useInfiniteQuery(trpc.audit.entries.infiniteQueryOptions({ ...filter, limit: 50 }, keysetPaging)),
  );
  const verify = useMutation(trpc.audit.verify.mutationOptions());
  const exportHref = `/staff/audit-log/export?${new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === "string"))}`;
  const columns = useAuditColumns();

  return (
    <>
      <PageHeader
        title={a.pageTitle}
        description={a.description}
        actions={
          canAdminister(me) ? (
            <DownloadButton href={exportHref} fileName="audit-log.csv">
              {a.exportCsv}
            </DownloadButton>
          ) : null
        }
      />
      <div className="cs-stack cs-stack--lg">
        <ChainVerifyCard
          verdict={verify.data}
          failure={verify.error ? describeApiError(readApiError(verify.error), t) : null}
          busy={verify.isPending}
          onVerify={() => verify.mutate()}
          exportAdminOnly={!canAdminister(me)}
        />
        <AuditFilters form={form} />
        <Card title={a.listCaption} flush>
          <ListBody
            list={list}
            caption={a.listCaption}
            columns={columns}
            rowKey={(entry) => entry.id}
            labels={a}
            skeletonLines={5}
            empty={<EmptyState icon="audit" level={3} title={a.emptyTitle} description={a.emptyBody} />}
          />
        </Card>
      </div>
    </>
  );
}

/** The filters: action code, form, actor type and date range. */
function AuditFilters({ form }: { form: AuditFilterForm }) {
  const { t } = useI18n();
  const a = t.auditLogPage;
  return (
    <FilterCard
      title={a.filtersTitle}
      onSubmit={form.submit}
      filtered={form.filtered}
      onReset={() => form.apply({})}
      labels={a}
    >
      <TextField label={a.action} placeholder={a.actionPlaceholder} {...form.field("action")} maxLength={100} />
      <TextField label={a.template} {...form.field("template")} maxLength={200} />
      <SelectField
        id="filter-actor"
        label={a.actorType}
        placeholder={a.allActors}
        options={auditActorTypes.map((type) => ({ value: type, label: actorTypeLabel(type, a) }))}
        {...form.field("actor")}
      />
      <DateRangeFilter form={form} labels={a} />
    </FilterCard>
  );
}
