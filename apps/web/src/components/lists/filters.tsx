"use client";

import { Button, Card, SelectField } from "@clinsign/ui";
import type { FormEvent, ReactNode } from "react";
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
    <SelectField
      id={id}
      label={label}
      placeholder={allLabel}
      value={value}
      onChange={(e) => onChange(e.target.value)}
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
