"use client";

import type { StaffList, TableColumn, IconName } from "@clinsign/ui";
import type { FormEvent, ReactNode } from "react";
import { FilterCard, ListEmpty } from "./filters";
import { ListCard } from "./ListCard";

/** The texts a filtered list page's section names (its i18n group carries them all). */
export interface FilteredListTexts {
  filtersTitle: string;
  listCaption: string;
  apply: string;
  reset: string;
  shown: string;
  loadMore: string;
  emptyTitle: string;
  emptyBody: string;
  emptyFilteredTitle: string;
  emptyFilteredBody: string;
}

/**
 * A staff list under its filters: the filter card (the `filters` fields, Apply, Reset) over a
 * useFilterForm, then the list's card, whose empty state says whether a filter hid everything.
 * `listDescription` goes under the list's title (e.g. the clinic's time zone, useClinicTime's note).
 */
export function FilteredList<Row extends { id: string }>({
  form,
  texts,
  filtersDescription,
  filters,
  list,
  listDescription,
  columns,
  emptyIcon,
}: {
  form: { filtered: boolean; submit(event: FormEvent): void; apply(next: Record<string, never>): void };
  texts: FilteredListTexts;
  filtersDescription?: ReactNode;
  filters: ReactNode;
  list: StaffList<Row>;
  listDescription?: ReactNode;
  columns: ReadonlyArray<TableColumn<Row>>;
  emptyIcon: IconName;
}) {
  return (
    <>
      <FilterCard
        title={texts.filtersTitle}
        description={filtersDescription}
        onSubmit={form.submit}
        filtered={form.filtered}
        onReset={() => form.apply({})}
        labels={texts}
      >
        {filters}
      </FilterCard>
      <ListCard
        title={texts.listCaption}
        description={listDescription}
        list={list}
        columns={columns}
        rowKey={(row) => row.id}
        labels={texts}
        empty={<ListEmpty icon={emptyIcon} filtered={form.filtered} texts={texts} />}
      />
    </>
  );
}
