"use client";

import { Button, Card, EmptyState, SelectField, TextField, type IconName } from "@clinsign/ui";
import type { ComponentProps, FormEvent, ReactNode } from "react";
import styles from "./lists.module.css";

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
  allLabel,
  templates,
  ...select
}: Omit<ComponentProps<typeof SelectField>, "placeholder" | "options" | "keepUnknownValue"> & {
  allLabel: string;
  templates: ReadonlyArray<{ identifier: string; title: string }>;
}) {
  return (
    <SelectField
      {...select}
      placeholder={allLabel}
      options={templates.map((item) => ({ value: item.identifier, label: item.title }))}
      keepUnknownValue
    />
  );
}

/**
 * The filters card above a staff list: a search form whose fields edit a draft (useFilterForm),
 * with "Apply" and, while a filter is set, "Reset".
 */
export function FilterCard({
  title,
  description,
  onSubmit,
  filtered,
  onReset,
  labels,
  children,
}: {
  title: string;
  description?: ReactNode;
  onSubmit(event: FormEvent): void;
  filtered: boolean;
  onReset(): void;
  labels: { apply: string; reset: string };
  children: ReactNode;
}) {
  return (
    <Card title={title} description={description}>
      <form className={styles.filters} onSubmit={onSubmit} role="search" aria-label={title}>
        {children}
        <FilterActions filtered={filtered} onReset={onReset} labels={labels} />
      </form>
    </Card>
  );
}

/**
 * A "created between" filter: two date fields (from, to) editing the filter form's draft; the
 * list turns them into the start of the first day and the end of the last (createdBetween).
 */
export function DateRangeFilter({
  form,
  labels,
}: {
  form: { field(key: "from" | "to"): Pick<ComponentProps<typeof TextField>, "value" | "onChange"> };
  labels: { from: string; to: string };
}) {
  return (
    <>
      <TextField label={labels.from} type="date" {...form.field("from")} />
      <TextField label={labels.to} type="date" {...form.field("to")} />
    </>
  );
}

/** What a filtered list says when nothing matches, and what it says when there is nothing at all. */
export function ListEmpty({
  icon,
  filtered,
  texts,
  action,
}: {
  icon: IconName;
  filtered: boolean;
  texts: { emptyTitle: string; emptyBody: string; emptyFilteredTitle: string; emptyFilteredBody?: string };
  /** Offered only when there is nothing at all (e.g. "Add document"): a filter is no reason to add. */
  action?: ReactNode;
}) {
  return filtered ? (
    <EmptyState icon={icon} level={3} title={texts.emptyFilteredTitle} description={texts.emptyFilteredBody} />
  ) : (
    <EmptyState icon={icon} level={3} title={texts.emptyTitle} description={texts.emptyBody} action={action} />
  );
}

/**
 * A list card's toolbar: a search box (its text follows useSearchText) and one select filter.
 * `landmark` names the toolbar as a search region where the page has no other.
 */
export function SearchToolbar({
  className,
  landmark,
  search,
  select,
}: {
  className?: string;
  landmark?: string;
  search: { label: string; text: string; onChange(text: string): void; maxLength?: number };
  select: ComponentProps<typeof SelectField>;
}) {
  return (
    <div className={className} role={landmark ? "search" : undefined} aria-label={landmark}>
      <TextField
        label={search.label}
        type="search"
        value={search.text}
        maxLength={search.maxLength}
        onChange={(event) => search.onChange(event.target.value)}
      />
      <SelectField {...select} />
    </div>
  );
}
