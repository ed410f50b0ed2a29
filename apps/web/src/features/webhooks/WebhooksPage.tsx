"use client";

import type { WebhookAttemptItem } from "@clinsign/contracts";
import { keysetPaging, SelectField, TextField, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import { DateRangeFilter, TemplateSelect } from "../../components/lists/filters";
import { FilteredList } from "../../components/lists/FilteredList";
import lists from "../../components/lists/lists.module.css";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTemplateOptions, type TemplateOption } from "../../components/lists/template-options";
import { useTRPC } from "../../trpc/client";
import { AttemptResult, DeliveryDetails } from "./DeliveryDetails";
import { KNOWN_EVENTS } from "./events";
import { TestEventCard } from "./TestEventCard";
import { VerifyGuide } from "./VerifyGuide";
import { WebhookSettingsCard } from "./WebhookSettingsCard";
import styles from "./webhooks.module.css";

const FILTER_KEYS = ["event", "template", "outcome", "from", "to"] as const;
const OUTCOMES = ["delivered", "failed"] as const;
type AttemptFilterForm = ReturnType<typeof useFilterForm<(typeof FILTER_KEYS)[number]>>;

/**
 * Webhooks: the default URLs and the secret's prefix, a test event, the delivery log (filters in
 * the URL, cursor paging) with each delivery's signed body and resend, and how to verify signatures.
 */
export function WebhooksPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const w = t.webhooksPage;
  const trpc = useTRPC();
  const form = useFilterForm(FILTER_KEYS);
  const { values } = form;
  const filter = {
    eventType: values.event || undefined,
    templateIdentifier: values.template || undefined,
    outcome: OUTCOMES.find((outcome) => outcome === values.outcome),
    ...createdBetween(values),
  };
  const templates = useTemplateOptions() ?? [];
  const titles = new Map(templates.map((item) => [item.identifier, item.title]));
  const list = useStaffList(
    useInfiniteQuery(trpc.webhooks.attempts.infiniteQueryOptions({ ...filter, limit: 50 }, keysetPaging)),
  );

  return (
    <>
      <PageHeader title={w.pageTitle} description={w.description} />
      <div className="cs-stack cs-stack--lg">
        <div className={styles.top}>
          <WebhookSettingsCard />
          <TestEventCard />
        </div>
        <FilteredList
          form={form}
          texts={w}
          list={list}
          listDescription={clinic.note}
          columns={attemptColumns(w, clinic, titles)}
          emptyIcon="webhook"
          filters={<AttemptFilters form={form} templates={templates} />}
        />
        <VerifyGuide w={w} />
      </div>
    </>
  );
}

/** The log's columns: when and which attempt, the event and its URL, the form, result, time taken, details. */
function attemptColumns(
  w: Dictionary["webhooksPage"],
  clinic: ReturnType<typeof useClinicTime>,
  titles: Map<string, string>,
): TableColumn<WebhookAttemptItem>[] {
  return [
    {
      key: "time",
      header: w.columnTime,
      render: (row) => (
        <div className={lists.stacked}>
          <span>{clinic.dateTime(row.createdAt)}</span>
          <span className="cs-hint">{format(w.attemptNo, { attempt: String(row.attempt) })}</span>
        </div>
      ),
    },
    {
      key: "event",
      header: w.columnEvent,
      render: (row) => (
        <div className={lists.stacked}>
          <code className="cs-mono">{row.eventType}</code>
          <span className={`cs-hint cs-mono ${styles.wrap}`}>{row.webhookUrl}</span>
        </div>
      ),
    },
    {
      key: "form",
      header: w.columnForm,
      render: (row) =>
        row.templateIdentifier
          ? (titles.get(row.templateIdentifier) ?? (
              <code className={`cs-mono ${styles.wrap}`}>{row.templateIdentifier}</code>
            ))
          : "–",
    },
    { key: "result", header: w.columnResult, render: (row) => <AttemptResult attempt={row} w={w} /> },
    { key: "duration", header: w.columnDuration, render: (row) => format(w.duration, { ms: String(row.durationMs) }) },
    { key: "details", header: w.columnDetails, render: (row) => <DeliveryDetails attempt={row} /> },
  ];
}

/** The log's filters: event type (known events suggested), form, outcome, and the days between. */
function AttemptFilters({ form, templates }: { form: AttemptFilterForm; templates: TemplateOption[] }) {
  const { t } = useI18n();
  const w = t.webhooksPage;
  return (
    <>
      <TextField
        label={w.eventType}
        placeholder={w.eventPlaceholder}
        list="known-events"
        {...form.field("event")}
        maxLength={100}
      />
      <datalist id="known-events">
        {KNOWN_EVENTS.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <TemplateSelect
        id="filter-template"
        label={w.template}
        allLabel={w.allTemplates}
        {...form.field("template")}
        templates={templates}
      />
      <SelectField
        id="filter-outcome"
        label={w.outcome}
        placeholder={w.allOutcomes}
        options={[
          { value: "delivered", label: w.outcomeDelivered },
          { value: "failed", label: w.outcomeFailed },
        ]}
        {...form.field("outcome")}
      />
      <DateRangeFilter form={form} labels={{ from: t.formRequestsPage.fromDate, to: t.formRequestsPage.toDate }} />
    </>
  );
}
