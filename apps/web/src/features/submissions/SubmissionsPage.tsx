"use client";

import type { SubmissionListItem } from "@clinsign/contracts";
import { Button, Card, EmptyState, TextField, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { ListBody } from "../../components/lists/ListBody";
import styles from "../../components/lists/lists.module.css";
import { useTemplateOptions } from "../../components/lists/template-options";
import { endOfDay, startOfDay, useUrlFilters } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { sourceLabel } from "./source";
import pageStyles from "./submissions.module.css";

const FILTER_KEYS = ["template", "rnummer", "from", "to"] as const;

/** "Case number R-2024-001", the number itself never broken at its hyphens. */
function CaseNumber({ text, rnummer }: { text: string; rnummer: string }) {
  const [before = "", after = ""] = text.split("{rnummer}");
  return (
    <span className="cs-hint">
      {before}
      <span className={pageStyles.caseNumber}>{rnummer}</span>
      {after}
    </span>
  );
}

/**
 * Submissions: filters in the URL (form, case number, date range), a cursor-paged table that
 * names each patient (the form's name field, and the case number), and
 * exports of the whole filter as CSV or JSON (streamed by the API, not only the rows shown).
 */
export function SubmissionsPage() {
  const { t, locale } = useI18n();
  const s = t.submissionsPage;
  const trpc = useTRPC();
  const { values, apply } = useUrlFilters(FILTER_KEYS);
  const [draft, setDraft] = useState(values);
  const [appliedKey, setAppliedKey] = useState(JSON.stringify(values));
  // Keeps the form in step when the URL changes from outside (back button, a shared link).
  if (JSON.stringify(values) !== appliedKey) {
    setAppliedKey(JSON.stringify(values));
    setDraft(values);
  }

  const filter = {
    templateIdentifier: values.template || undefined,
    rnummer: values.rnummer || undefined,
    createdFrom: startOfDay(values.from),
    createdTo: endOfDay(values.to),
  };
  const filtered = Object.values(values).some(Boolean);
  const templates = useTemplateOptions();
  const list = useInfiniteQuery(
    trpc.submissions.list.infiniteQueryOptions(
      { ...filter, limit: 50 },
      { getNextPageParam: (page) => page.nextCursor ?? undefined },
    ),
  );
  const rows = list.data?.pages.flatMap((page) => page.items) ?? [];

  const exportQuery = new URLSearchParams(
    Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  const exportHref = (fmt: "csv" | "json") =>
    `/staff/submissions/export?${new URLSearchParams([...exportQuery, ["format", fmt]])}`;

  function submit(event: FormEvent) {
    event.preventDefault();
    apply(draft);
  }

  const columns: TableColumn<SubmissionListItem>[] = [
    { key: "submitted", header: s.columnSubmitted, render: (row) => formatDateTime(row.createdAt, locale) },
    { key: "form", header: s.columnForm, render: (row) => row.templateTitle },
    {
      key: "patient",
      header: s.columnPatient,
      render: (row) =>
        row.patientName || row.rnummer ? (
          <span className={pageStyles.patient}>
            {row.patientName ? <span className={pageStyles.patientName}>{row.patientName}</span> : null}
            {row.rnummer ? <CaseNumber text={s.caseNumber} rnummer={row.rnummer} /> : null}
          </span>
        ) : (
          "–"
        ),
    },
    { key: "source", header: s.columnSource, render: (row) => sourceLabel(row.actorType, s) },
    { key: "fields", header: s.columnFields, render: (row) => row.fieldCount },
    {
      key: "open",
      header: s.open,
      end: true,
      render: (row) => (
        <Link
          className="cs-button cs-button--secondary cs-button--small"
          href={`/submissions/${row.id}`}
          aria-label={format(s.openLabel, { date: formatDateTime(row.createdAt, locale) })}
        >
          {s.open}
        </Link>
      ),
    },
  ];

  const body = (
    <ListBody
      list={list}
      rows={rows}
      caption={s.listCaption}
      columns={columns}
      rowKey={(row) => row.id}
      labels={s}
      empty={
        filtered ? (
          <EmptyState icon="inbox" level={3} title={s.emptyFilteredTitle} description={s.emptyFilteredBody} />
        ) : (
          <EmptyState icon="inbox" level={3} title={s.emptyTitle} description={s.emptyBody} />
        )
      }
    />
  );

  return (
    <>
      <PageHeader
        title={s.pageTitle}
        description={s.description}
        actions={
          <>
            <a className="cs-button cs-button--secondary" href={exportHref("csv")} download>
              {s.exportCsv}
            </a>
            <a className="cs-button cs-button--secondary" href={exportHref("json")} download>
              {s.exportJson}
            </a>
          </>
        }
      />
      <div className="cs-stack cs-stack--lg">
        <Card title={s.filtersTitle} description={s.exportHint}>
          <form className={styles.filters} onSubmit={submit} role="search" aria-label={s.filtersTitle}>
            <div className="cs-field">
              <label className="cs-label" htmlFor="filter-template">
                {s.template}
              </label>
              <select
                id="filter-template"
                className={`cs-input ${styles.select}`}
                value={draft.template}
                onChange={(e) => setDraft({ ...draft, template: e.target.value })}
              >
                <option value="">{s.allTemplates}</option>
                {(templates ?? []).map((item) => (
                  <option key={item.identifier} value={item.identifier}>
                    {item.title}
                  </option>
                ))}
                {draft.template && !templates?.some((item) => item.identifier === draft.template) ? (
                  <option value={draft.template}>{draft.template}</option>
                ) : null}
              </select>
            </div>
            <TextField
              label={s.rnummer}
              value={draft.rnummer}
              onChange={(e) => setDraft({ ...draft, rnummer: e.target.value })}
              maxLength={64}
            />
            <TextField
              label={s.from}
              type="date"
              value={draft.from}
              onChange={(e) => setDraft({ ...draft, from: e.target.value })}
            />
            <TextField
              label={s.to}
              type="date"
              value={draft.to}
              onChange={(e) => setDraft({ ...draft, to: e.target.value })}
            />
            <div className={styles.filterActions}>
              <Button type="submit" variant="primary">
                {s.apply}
              </Button>
              {filtered ? (
                <Button type="button" onClick={() => apply({})}>
                  {s.reset}
                </Button>
              ) : null}
            </div>
          </form>
        </Card>
        <Card title={s.listCaption} flush>
          {body}
        </Card>
      </div>
    </>
  );
}
