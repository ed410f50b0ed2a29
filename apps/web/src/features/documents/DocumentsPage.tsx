"use client";

import type { DocumentListItem } from "@clinsign/contracts";
import { Badge, keysetPaging, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCan } from "../../components/admin-shell/SessionContext";
import { ListEmpty, SearchToolbar } from "../../components/lists/filters";
import { ListCard } from "../../components/lists/ListCard";
import { useSearchText, useUrlFilters } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime, type ClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import styles from "./documents.module.css";
import { AVAILABILITIES, availabilityTone, REQUEST_STATUSES as STATUSES } from "./labels";
import { documentLanguageName } from "./DocumentLanguageSelect";

/**
 * Documents: search and availability filter in the URL, a cursor-paged table with each
 * document's version, fields and requests, and the way to add one (upload or URL).
 */
export function DocumentsPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const d = t.documentsPage;
  const trpc = useTRPC();
  const mayAdd = useCan()("documents.create");
  const { values, apply } = useUrlFilters(["q", "availability"] as const);
  const availability = AVAILABILITIES.find((a) => a === values.availability);
  const list = useStaffList(
    useInfiniteQuery(
      trpc.documents.overview.infiniteQueryOptions(
        { search: values.q || undefined, availability, limit: 50 },
        keysetPaging,
      ),
    ),
  );
  const [searchText, setSearchText] = useSearchText(values.q, (q) => apply({ ...values, q }));

  const filtered = Boolean(values.q || availability);
  // Offered twice: in the header, and in the empty list's call to action.
  const addDocument = mayAdd ? (
    <Link className="cs-button cs-button--primary" href="/documents/new">
      {d.addDocument}
    </Link>
  ) : null;

  return (
    <>
      {/* The list card has no title (the page's is enough), so the zone of its times is said here. */}
      <PageHeader title={d.pageTitle} description={`${d.description} ${clinic.note}`} actions={addDocument} />
      <ListCard
        toolbar={
          <SearchToolbar
            className={styles.toolbar}
            landmark={d.search}
            search={{ label: d.search, text: searchText, onChange: setSearchText, maxLength: 200 }}
            select={{
              id: "document-availability-filter",
              label: d.availabilityFilter,
              placeholder: d.allAvailabilities,
              options: AVAILABILITIES.map((a) => ({ value: a, label: d.availability[a] })),
              value: availability ?? "",
              onChange: (event) => apply({ ...values, q: searchText, availability: event.target.value }),
            }}
          />
        }
        list={list}
        caption={d.listCaption}
        columns={documentColumns(d, clinic)}
        rowKey={(item) => item.id}
        labels={{ shown: d.shown, loadMore: d.loadMore }}
        empty={
          <ListEmpty
            icon="document"
            filtered={filtered}
            texts={{ emptyTitle: d.empty, emptyBody: d.emptyBody, emptyFilteredTitle: d.noMatches }}
            action={addDocument}
          />
        }
      />
    </>
  );
}

/** The list's columns: name (the link to the document), availability, version, language, fields, requests, updated. */
function documentColumns(d: Dictionary["documentsPage"], clinic: ClinicTime): TableColumn<DocumentListItem>[] {
  return [
    {
      key: "name",
      header: d.columnName,
      render: (item) => (
        <Link href={`/documents/${item.id}`} className={styles.nameLink}>
          {item.name}
        </Link>
      ),
    },
    {
      key: "availability",
      header: d.columnAvailability,
      render: (item) => <Badge tone={availabilityTone[item.availability]}>{d.availability[item.availability]}</Badge>,
    },
    { key: "version", header: d.columnVersion, render: (item) => item.currentVersion },
    {
      key: "language",
      header: d.columnLanguage,
      render: (item) => (item.language ? documentLanguageName(item.language) : d.languageNone),
    },
    { key: "fields", header: d.columnFields, render: (item) => item.fieldCount },
    {
      key: "requests",
      header: d.columnRequests,
      render: (item) => {
        const nonZero = STATUSES.filter((status) => item.requestCounts[status] > 0);
        if (nonZero.length === 0) return <span className={styles.muted}>{d.noRequests}</span>;
        return (
          <ul className={styles.statusCounts}>
            {nonZero.map((status) => (
              <li key={status}>
                {item.requestCounts[status]} {d.status[status]}
              </li>
            ))}
          </ul>
        );
      },
    },
    { key: "updated", header: d.columnUpdated, render: (item) => clinic.dateTime(item.updatedAt) },
  ];
}
