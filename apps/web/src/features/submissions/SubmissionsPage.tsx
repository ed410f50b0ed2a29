"use client";

import type { SubmissionListItem } from "@clinsign/contracts";
import { keysetPaging, TextField, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DateRangeFilter, TemplateSelect } from "../../components/lists/filters";
import { FilteredList } from "../../components/lists/FilteredList";
import { useTemplateOptions } from "../../components/lists/template-options";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { scoreColumn, scoreFilter, ScoreFilters } from "./scores";
import { sourceLabel } from "./source";
import pageStyles from "./submissions.module.css";

type Texts = Dictionary["submissionsPage"];

const FILTER_KEYS = ["template", "rnummer", "from", "to", "flagged", "minScore"] as const;

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
  const form = useFilterForm(FILTER_KEYS);
  const { values } = form;
  const filter = {
    templateIdentifier: values.template || undefined,
    rnummer: values.rnummer || undefined,
    ...createdBetween(values),
    ...scoreFilter(values),
  };
  const templates = useTemplateOptions();
  const list = useStaffList(
    useInfiniteQuery(trpc.submissions.list.infiniteQueryOptions({ ...filter, limit: 50 }, keysetPaging)),
  );

  return (
    <>
      <PageHeader title={s.pageTitle} description={s.description} actions={<ExportLinks filter={filter} s={s} />} />
      <div className="cs-stack cs-stack--lg">
        <FilteredList
          form={form}
          texts={s}
          filtersDescription={s.exportHint}
          list={list}
          columns={submissionColumns(s, locale, scoreColumn(list.rows, s))}
          emptyIcon="inbox"
          filters={
            <>
              <TemplateSelect
                id="filter-template"
                label={s.template}
                allLabel={s.allTemplates}
                {...form.field("template")}
                templates={templates ?? []}
              />
              <TextField label={s.rnummer} {...form.field("rnummer")} maxLength={64} />
              <ScoreFilters
                s={s}
                templateIdentifier={values.template}
                flagged={form.field("flagged")}
                minScore={form.field("minScore")}
              />
              <DateRangeFilter form={form} labels={{ from: s.from, to: s.to }} />
            </>
          }
        />
      </div>
    </>
  );
}

/** The export downloads of the whole filter: CSV, CSV with the options' codes, JSON. */
function ExportLinks({ filter, s }: { filter: Record<string, string | number | boolean | undefined>; s: Texts }) {
  const exportQuery = new URLSearchParams(
    Object.entries(filter).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])),
  );
  const exportHref = (fmt: "csv" | "json", codes = false) =>
    `/staff/submissions/export?${new URLSearchParams([...exportQuery, ["format", fmt], ...(codes ? [["optionValues", "true"]] : [])])}`;
  return (
    <>
      <a className="cs-button cs-button--secondary" href={exportHref("csv")} download>
        {s.exportCsv}
      </a>
      <a
        className="cs-button cs-button--secondary"
        href={exportHref("csv", true)}
        title={s.exportCsvCodesLabel}
        download
      >
        {s.exportCsvCodes}
      </a>
      <a className="cs-button cs-button--secondary" href={exportHref("json")} download>
        {s.exportJson}
      </a>
    </>
  );
}

/** The table's columns. */
function submissionColumns(
  s: Texts,
  locale: string,
  score: TableColumn<SubmissionListItem> | null,
): TableColumn<SubmissionListItem>[] {
  return [
    { key: "submitted", header: s.columnSubmitted, render: (row) => formatDateTime(row.createdAt, locale) },
    { key: "form", header: s.columnForm, render: (row) => row.templateTitle },
    { key: "patient", header: s.columnPatient, render: (row) => <PatientCell row={row} s={s} /> },
    { key: "source", header: s.columnSource, render: (row) => sourceLabel(row.actorType, s) },
    // A scored list shows the score where the answer count was (scores.tsx says why).
    score ?? { key: "fields", header: s.columnFields, render: (row) => row.fieldCount },
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
}

/** Who sent it: the form's name field and the case number (marked when the patient typed it). */
function PatientCell({ row, s }: { row: SubmissionListItem; s: Texts }) {
  if (!row.patientName && !row.rnummer) return "–";
  return (
    <span className={pageStyles.patient}>
      {row.patientName ? <span className={pageStyles.patientName}>{row.patientName}</span> : null}
      {row.rnummer ? <CaseNumber text={s.caseNumber} rnummer={row.rnummer} /> : null}
      {row.rnummer && row.patientReported.includes("rnummer") ? (
        <span className="cs-hint">{s.patientReported}</span>
      ) : null}
    </span>
  );
}
