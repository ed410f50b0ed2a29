"use client";

import {
  auditActorTypes,
  legacyAuditActorTypes,
  type AuditActorType,
  type AuditChainVerdict,
  type AuditListItem,
} from "@clinsign/contracts";
import {
  Button,
  Card,
  EmptyState,
  keysetPaging,
  LiveRegion,
  Notice,
  SelectField,
  type TableColumn,
  TextField,
  useStaffList,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { canAdminister, useSession } from "../../components/admin-shell/SessionContext";
import { DownloadButton } from "../../components/DownloadButton";
import { ListBody } from "../../components/lists/ListCard";
import { DateRangeFilter, FilterCard } from "../../components/lists/filters";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./audit-log.module.css";
import { actionLabel, actorTypeLabel, actorWords, changeWords } from "./entry-words";

const FILTER_KEYS = ["action", "template", "actor", "from", "to"] as const;

/** The actor filter of a URL: today's word, or an old spelling from a bookmarked link. */
function actorTypeOf(value: string | undefined): AuditActorType | undefined {
  const legacy = legacyAuditActorTypes as Record<string, AuditActorType>;
  return auditActorTypes.find((type) => type === value) ?? (value ? legacy[value] : undefined);
}

/** Why the chain check failed, in words: which entry, and what that kind of break means. */
function verdictProblem(verdict: AuditChainVerdict, a: Dictionary["auditLogPage"]): string {
  const texts: Record<NonNullable<AuditChainVerdict["problem"]>, string> = {
    chain_broken: a.verifyBroken,
    head_mismatch: a.verifyHeadMismatch,
    slipped_in: a.verifySlippedIn,
    seq_out_of_range: a.verifySeqOutOfRange,
    unchained_overdue: a.verifyUnchainedOverdue,
  };
  return format(texts[verdict.problem ?? "chain_broken"], {
    seq: String(verdict.brokenAt),
    count: String(verdict.entries),
    max: String(verdict.unchained.maxAgeSeconds),
  });
}

function EntryDetails({ entry, a }: { entry: AuditListItem; a: Dictionary["auditLogPage"] }) {
  return (
    <details className={styles.details}>
      {/* The visible word first, so the name a voice user says is the one they see (WCAG 2.5.3). */}
      <summary>
        {a.metadata}
        <span className="cs-visually-hidden"> {format(a.ofEntry, { seq: String(entry.seq) })}</span>
      </summary>
      <dl className={styles.meta}>
        {entry.actorId ? (
          <>
            <dt>{a.actorId}</dt>
            <dd className="cs-mono">{entry.actorId}</dd>
          </>
        ) : null}
        {entry.ip ? (
          <>
            <dt>{a.address}</dt>
            <dd className="cs-mono">{entry.ip}</dd>
          </>
        ) : null}
        {entry.userAgent ? (
          <>
            <dt>{a.userAgent}</dt>
            <dd>{entry.userAgent}</dd>
          </>
        ) : null}
      </dl>
      <pre className={styles.json}>{JSON.stringify(entry.metadata, null, 2)}</pre>
    </details>
  );
}

/**
 * The audit log: filters in the URL (action, form, actor type, date range), cursor paging, each
 * entry's actor and metadata; verifying the hash chain; CSV export for owners and admins.
 */
export function AuditLogPage() {
  const { t, locale } = useI18n();
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

  const columns: TableColumn<AuditListItem>[] = [
    {
      key: "time",
      header: a.columnTime,
      render: (entry) => (
        <>
          {formatDateTime(entry.createdAt, locale)}
          <div className="cs-hint">{format(a.seq, { seq: String(entry.seq) })}</div>
          {entry.chained ? null : <div className="cs-hint">{a.notChained}</div>}
        </>
      ),
    },
    {
      key: "action",
      header: a.columnAction,
      render: (entry) => {
        // The label in words, the code beside it (what the action filter takes), and what changed.
        const label = actionLabel(entry, a);
        const changes = changeWords(entry, a);
        return (
          <div>
            {label ? <span>{label}</span> : <code className="cs-mono">{entry.action}</code>}
            {label ? <div className={`cs-hint cs-mono ${styles.wrap}`}>{entry.action}</div> : null}
            {changes.length ? (
              <ul className={styles.changes}>
                {changes.map((line) => (
                  <li key={line} className={styles.wrap}>
                    {line}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        );
      },
    },
    {
      key: "actor",
      header: a.columnActor,
      render: (entry) => {
        // A signer by role ("Physician (signing link)"), with the name staff gave them.
        const actor = actorWords(entry, a, t.signing.signerRoles);
        return actor.name ? (
          <div>
            <span className={styles.wrap}>{actor.name}</span>
            <div className="cs-hint">{actor.kind}</div>
          </div>
        ) : (
          actor.kind
        );
      },
    },
    {
      key: "form",
      header: a.columnForm,
      render: (entry) =>
        entry.templateIdentifier ? <code className={`cs-mono ${styles.wrap}`}>{entry.templateIdentifier}</code> : "–",
    },
    { key: "details", header: a.columnDetails, render: (entry) => <EntryDetails entry={entry} a={a} /> },
  ];

  const body = (
    <ListBody
      list={list}
      caption={a.listCaption}
      columns={columns}
      rowKey={(entry) => entry.id}
      labels={a}
      skeletonLines={5}
      empty={<EmptyState icon="audit" level={3} title={a.emptyTitle} description={a.emptyBody} />}
    />
  );

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
        <Card
          title={a.verifyTitle}
          description={a.verifyBody}
          actions={
            <Button variant="primary" onClick={() => verify.mutate()} busy={verify.isPending}>
              {a.verify}
            </Button>
          }
        >
          <LiveRegion>
            {verify.data?.ok ? (
              <Notice tone="success">{format(a.verifyOk, { count: String(verify.data.entries) })}</Notice>
            ) : null}
            {verify.data && !verify.data.ok ? <Notice tone="danger">{verdictProblem(verify.data, a)}</Notice> : null}
            {verify.data && verify.data.problem !== "unchained_overdue" && verify.data.unchained.count > 0 ? (
              <Notice tone="info">
                {format(a.verifyUnchainedPending, {
                  count: String(verify.data.unchained.count),
                  age: String(verify.data.unchained.oldestAgeSeconds ?? 0),
                  max: String(verify.data.unchained.maxAgeSeconds),
                })}
              </Notice>
            ) : null}
            {verify.data && verify.data.lateEntries > 0 ? (
              <Notice tone="warning">{format(a.verifyLateEntries, { count: String(verify.data.lateEntries) })}</Notice>
            ) : null}
            {verify.error ? <Notice tone="danger">{describeApiError(readApiError(verify.error), t)}</Notice> : null}
          </LiveRegion>
          {!canAdminister(me) ? <p className="cs-hint">{a.exportAdminOnly}</p> : null}
        </Card>
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
        <Card title={a.listCaption} flush>
          {body}
        </Card>
      </div>
    </>
  );
}
