"use client";

import { Button, Skeleton, Table, type TableColumn } from "@clinsign/ui";
import type { ReactNode } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { ListPager } from "./ListPager";
import styles from "./lists.module.css";
import { LoadFailed } from "../LoadFailed";

/** What ListBody reads of a cursor-paged (infinite) query. */
export interface PagedQuery {
  isPending: boolean;
  isFetching: boolean;
  isFetchingNextPage: boolean;
  hasNextPage: boolean;
  error: unknown;
  refetch(): unknown;
  fetchNextPage(): unknown;
}

export interface ListBodyProps<Row> {
  list: PagedQuery;
  rows: readonly Row[];
  caption: string;
  columns: ReadonlyArray<TableColumn<Row>>;
  rowKey(row: Row): string;
  /** What an empty list says (filtered or not: the caller knows). */
  empty: ReactNode;
  /** `shown` has a {count} placeholder. */
  labels: { shown: string; loadMore: string };
  skeletonLines?: number;
}

/** The body of a staff list's card: loading, error with retry, empty, or the table with "Load more". */
export function ListBody<Row>({
  list,
  rows,
  caption,
  columns,
  rowKey,
  empty,
  labels,
  skeletonLines = 4,
}: ListBodyProps<Row>) {
  const { t } = useI18n();
  if (list.isPending)
    return (
      <div className="cs-card__body">
        <Skeleton label={t.common.loading} lines={skeletonLines} />
      </div>
    );
  if (list.error) return <LoadFailed query={list} className="cs-card__body cs-stack" />;
  if (rows.length === 0) return <>{empty}</>;
  return (
    <>
      <div className={styles.tableBody}>
        <Table caption={caption} columns={columns} rows={rows} rowKey={rowKey} />
      </div>
      <ListPager
        shown={format(labels.shown, { count: String(rows.length) })}
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        onMore={() => void list.fetchNextPage()}
        labels={labels}
      />
    </>
  );
}

/** The filter form's buttons: apply, and reset while a filter is set. */
export function FilterActions({
  filtered,
  onReset,
  labels,
}: {
  filtered: boolean;
  onReset(): void;
  labels: { apply: string; reset: string };
}) {
  return (
    <div className={styles.filterActions}>
      <Button type="submit" variant="primary">
        {labels.apply}
      </Button>
      {filtered ? (
        <Button type="button" onClick={onReset}>
          {labels.reset}
        </Button>
      ) : null}
    </div>
  );
}

/** A form filter: every template by title; a template named in the URL but not (or no longer) listed stays selectable. */
export function TemplateSelect({
  id,
  label,
  allLabel,
  value,
  onChange,
  templates,
}: {
  id: string;
  label: string;
  allLabel: string;
  value: string;
  onChange(value: string): void;
  templates: ReadonlyArray<{ identifier: string; title: string }>;
}) {
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className={`cs-input ${styles.select}`} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{allLabel}</option>
        {templates.map((item) => (
          <option key={item.identifier} value={item.identifier}>
            {item.title}
          </option>
        ))}
        {value && !templates.some((item) => item.identifier === value) ? <option value={value}>{value}</option> : null}
      </select>
    </div>
  );
}
