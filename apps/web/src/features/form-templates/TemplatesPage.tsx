"use client";

import type { TemplateOverviewItem } from "@clinsign/contracts";
import {
  Badge,
  type BadgeTone,
  Button,
  Card,
  ConfirmDialog,
  keysetPaging,
  LiveRegion,
  type TableColumn,
  TextField,
  useStaffList,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { ListEmpty, SearchToolbar } from "../../components/lists/filters";
import { ListCard } from "../../components/lists/ListCard";
import { useSearchText, useUrlFilters } from "../../components/lists/url-filters";
import { ErrorNotice } from "../../components/ErrorNotice";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime, type ClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { LibraryCard } from "./LibraryCard";
import { statusLabel } from "./status";
import styles from "./templates.module.css";
import { useCan } from "../../components/admin-shell/SessionContext";

const STATUSES = ["draft", "active", "archived"] as const;
const statusTone: Record<TemplateOverviewItem["status"], BadgeTone> = {
  draft: "neutral",
  active: "success",
  archived: "warning",
};

/**
 * Form templates: search and status filter (kept in the URL, so a filtered list can be shared
 * and the back button works), create, and per template edit, preview, duplicate, archive and
 * delete (past submissions are kept).
 */
export function TemplatesPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const f = t.formTemplates;
  const can = useCan();
  const { list, filtered, filters } = useTemplateOverview();
  const [announcement, setAnnouncement] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<TemplateOverviewItem | null>(null);
  const actions = useTemplateActions(() => {
    setDeleting(null);
    setAnnouncement(f.deleted);
  });

  const columns = templateColumns(t, clinic, (item) => (
    <TemplateRowActions
      item={item}
      onDuplicate={() => void actions.duplicateTemplate(item)}
      onArchive={() => actions.update.mutate({ identifier: item.identifier, status: "archived" })}
      onDelete={() => setDeleting(item)}
    />
  ));

  return (
    <>
      <PageHeader title={f.pageTitle} description={f.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />
        <ErrorNotice error={actions.failure} />
        {can("templates.create") ? (
          <CreateTemplateCard busy={actions.create.isPending} onCreate={(title) => actions.create.mutate({ title })} />
        ) : null}
        {can("templates.create") ? <LibraryCard /> : null}
        <ListCard
          description={clinic.note}
          toolbar={<TemplateFilters {...filters} />}
          list={list}
          caption={f.pageTitle}
          columns={columns}
          rowKey={(item) => item.identifier}
          labels={{ shown: f.shown, loadMore: f.loadMore }}
          empty={
            <ListEmpty
              icon="template"
              filtered={filtered}
              texts={{ emptyTitle: f.empty, emptyBody: f.emptyBody, emptyFilteredTitle: f.noMatches }}
            />
          }
        />
      </div>
      <ConfirmDialog
        open={deleting !== null}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && actions.remove.mutate({ identifier: deleting.identifier })}
        title={deleting ? format(f.deleteTitle, { title: deleting.title }) : ""}
        description={f.deleteBody}
        confirmLabel={f.deleteConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={actions.remove.isPending}
      />
    </>
  );
}

/** The list as the URL filters it (search text and status), and those filters for the toolbar. */
function useTemplateOverview() {
  const trpc = useTRPC();
  const { values, apply } = useUrlFilters(["q", "status"] as const);
  const search = values.q;
  const status = STATUSES.find((s) => s === values.status) ?? null;
  const list = useStaffList(
    useInfiniteQuery(
      trpc.templates.overview.infiniteQueryOptions(
        { q: search || undefined, status: status ?? undefined, limit: 50 },
        keysetPaging,
      ),
    ),
  );
  const setFilter = (name: "q" | "status", value: string | null) => apply({ ...values, [name]: value ?? "" });
  const [searchText, setSearchText] = useSearchText(search, (q) => setFilter("q", q || null));
  const filters: TemplateFiltersProps = {
    searchText,
    onSearchText: setSearchText,
    status,
    onStatus: (value) => setFilter("status", value),
  };
  return { list, filtered: Boolean(search || status), filters };
}

/**
 * The list's changes: create (then open the new template), duplicate (a draft copy made from the
 * full template), archive and delete; `failure` is the first of them that went wrong.
 */
function useTemplateActions(onDeleted: () => void) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.templates.overview.pathKey() });
  const create = useMutation(
    trpc.templates.create.mutationOptions({
      onSuccess: (created) => router.push(`/form-templates/${encodeURIComponent(created.identifier)}`),
    }),
  );
  const getTemplate = useMutation({
    mutationFn: (identifier: string) =>
      queryClient.fetchQuery(trpc.templates.get.queryOptions({ identifier, activeOnly: false })),
  });
  const duplicate = useMutation(trpc.templates.create.mutationOptions({ onSuccess: () => void refresh() }));
  const update = useMutation(trpc.templates.update.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(
    trpc.templates.delete.mutationOptions({
      onSuccess: () => {
        onDeleted();
        void refresh();
      },
    }),
  );
  const failure = [create, duplicate, update, remove, getTemplate].find((m) => m.isError)?.error;

  async function duplicateTemplate(item: TemplateOverviewItem) {
    const source = await getTemplate.mutateAsync(item.identifier);
    duplicate.mutate({
      title: format(t.formTemplates.copyOf, { title: source.title }).slice(0, 120),
      description: source.description,
      status: "draft",
      schema: source.schema,
    });
  }

  return { create, update, remove, failure, duplicateTemplate };
}

/** The "new template" card: a title, then the builder opens on it. */
function CreateTemplateCard({ busy, onCreate }: { busy: boolean; onCreate(title: string): void }) {
  const { t } = useI18n();
  const f = t.formTemplates;
  const [title, setTitle] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    if (title.trim()) onCreate(title.trim());
  }

  return (
    <Card title={f.create}>
      <form className={styles.createRow} onSubmit={submit}>
        <TextField
          label={f.createTitle}
          value={title}
          maxLength={120}
          onChange={(event) => setTitle(event.target.value)}
        />
        <Button type="submit" variant="primary" busy={busy} disabled={!title.trim()}>
          {f.createButton}
        </Button>
      </form>
    </Card>
  );
}

/** Search by title and the status filter above the list. */
interface TemplateFiltersProps {
  searchText: string;
  onSearchText(text: string): void;
  status: TemplateOverviewItem["status"] | null;
  onStatus(status: string | null): void;
}

function TemplateFilters({ searchText, onSearchText, status, onStatus }: TemplateFiltersProps) {
  const { t } = useI18n();
  const f = t.formTemplates;
  return (
    <SearchToolbar
      className={styles.toolbar}
      search={{ label: f.search, text: searchText, onChange: onSearchText }}
      select={{
        id: "template-status-filter",
        label: f.statusFilter,
        placeholder: f.allStatuses,
        options: STATUSES.map((s) => ({ value: s, label: statusLabel(s, t) })),
        value: status ?? "",
        onChange: (event) => onStatus(event.target.value || null),
      }}
    />
  );
}

/** The list's columns; `actions` renders the last cell of a row. */
function templateColumns(
  t: Dictionary,
  clinic: ClinicTime,
  actions: (item: TemplateOverviewItem) => ReactNode,
): TableColumn<TemplateOverviewItem>[] {
  const f = t.formTemplates;
  return [
    {
      key: "title",
      header: f.columnTitle,
      render: (item) => (
        <a href={`/form-templates/${encodeURIComponent(item.identifier)}`} className={styles.titleLink}>
          {item.title}
        </a>
      ),
    },
    {
      key: "status",
      header: f.columnStatus,
      render: (item) => <Badge tone={statusTone[item.status]}>{statusLabel(item.status, t)}</Badge>,
    },
    { key: "fields", header: f.columnFields, render: (item) => item.fieldCount },
    { key: "submissions", header: t.nav.submissions, render: (item) => item.submissionCount },
    { key: "updated", header: f.columnUpdated, render: (item) => clinic.dateTime(item.updatedAt) },
    { key: "actions", header: f.columnActions, end: true, render: actions },
  ];
}

/** A row's actions, each named with the template's title; what the staff role may not do is not shown. */
function TemplateRowActions({
  item,
  onDuplicate,
  onArchive,
  onDelete,
}: {
  item: TemplateOverviewItem;
  onDuplicate(): void;
  onArchive(): void;
  onDelete(): void;
}) {
  const { t } = useI18n();
  const f = t.formTemplates;
  const can = useCan();
  return (
    <div className="cs-row">
      <a
        className="cs-button cs-button--secondary cs-button--small"
        href={`/form-templates/${encodeURIComponent(item.identifier)}/preview`}
        aria-label={`${f.previewAction}: ${item.title}`}
      >
        {f.previewAction}
      </a>
      {can("templates.create") ? (
        <Button size="small" variant="ghost" aria-label={`${f.duplicate}: ${item.title}`} onClick={onDuplicate}>
          {f.duplicate}
        </Button>
      ) : null}
      {item.status !== "archived" && can("templates.update") ? (
        <Button size="small" variant="ghost" aria-label={`${f.archive}: ${item.title}`} onClick={onArchive}>
          {f.archive}
        </Button>
      ) : null}
      {can("templates.delete") ? (
        <Button size="small" variant="danger-outline" aria-label={`${f.delete}: ${item.title}`} onClick={onDelete}>
          {f.delete}
        </Button>
      ) : null}
    </div>
  );
}
