"use client";

import { formRequestStates, type FormRequestListItem, type FormRequestState } from "@clinsign/contracts";
import { Badge, Card, keysetPaging, SelectField, TextField, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import { DateRangeFilter, TemplateSelect } from "../../components/lists/filters";
import { FilteredList } from "../../components/lists/FilteredList";
import lists from "../../components/lists/lists.module.css";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTemplateOptions } from "../../components/lists/template-options";
import { useTRPC } from "../../trpc/client";
import { Outbox } from "./Outbox";
import { RequestDetails } from "./RequestDetails";
import { SendRequestForm } from "./SendRequestForm";
import { stateLabel, stateTone } from "./states";
import { useCan } from "../../components/admin-shell/SessionContext";

const FILTER_KEYS = ["state", "template", "rnummer", "from", "to"] as const;

/**
 * Form requests (SMS): send a form by SMS, the requests with their state (filters in the URL,
 * cursor paging), each request's SMS history with resend and cancel, and the outbox in a demo.
 */
export function FormRequestsPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const f = t.formRequestsPage;
  const trpc = useTRPC();
  const can = useCan();
  const form = useFilterForm(FILTER_KEYS);
  const { values } = form;
  const filter = {
    state: formRequestStates.find((state) => state === values.state) as FormRequestState | undefined,
    templateIdentifier: values.template || undefined,
    rnummer: values.rnummer || undefined,
    ...createdBetween(values),
  };
  const templates = useTemplateOptions() ?? [];
  const list = useStaffList(
    useInfiniteQuery(trpc.formRequests.list.infiniteQueryOptions({ ...filter, limit: 50 }, keysetPaging)),
  );

  const columns: TableColumn<FormRequestListItem>[] = [
    { key: "sent", header: f.columnSent, render: (row) => clinic.dateTime(row.createdAt) },
    { key: "form", header: f.columnForm, render: (row) => row.templateTitle ?? row.templateIdentifier },
    { key: "rnummer", header: f.columnRnummer, render: (row) => row.rnummer },
    { key: "phone", header: f.columnPhone, render: (row) => <span className="cs-mono">{row.phone}</span> },
    {
      key: "state",
      header: f.columnState,
      render: (row) => (
        <div className={lists.stacked}>
          <Badge tone={stateTone(row.state)}>{stateLabel(row.state, f)}</Badge>
          {row.state === "sms_retrying" || row.state === "sms_failed" ? (
            row.smsError ? (
              <span className={lists.error}>{row.smsError}</span>
            ) : null
          ) : row.state !== "submitted" && row.state !== "cancelled" ? (
            <span className="cs-hint">
              {format(row.state === "expired" ? f.expired : f.expires, { date: clinic.dateTime(row.expiresAt) })}
            </span>
          ) : null}
        </div>
      ),
    },
    { key: "details", header: f.columnDetails, render: (row) => <RequestDetails request={row} /> },
  ];

  return (
    <>
      <PageHeader title={f.pageTitle} description={f.description} />
      <div className="cs-stack cs-stack--lg">
        {can("formRequests.create") ? (
          <Card title={f.sendTitle} description={f.sendDescription}>
            <SendRequestForm />
          </Card>
        ) : null}
        <FilteredList
          form={form}
          texts={f}
          list={list}
          listDescription={clinic.note}
          columns={columns}
          emptyIcon="send"
          filters={
            <>
              <SelectField
                id="filter-state"
                label={f.state}
                placeholder={f.allStates}
                options={formRequestStates.map((state) => ({ value: state, label: stateLabel(state, f) }))}
                {...form.field("state")}
              />
              <TemplateSelect
                id="filter-template"
                label={f.template}
                allLabel={f.allTemplates}
                {...form.field("template")}
                templates={templates}
              />
              <TextField label={f.rnummer} {...form.field("rnummer")} maxLength={64} />
              <DateRangeFilter form={form} labels={{ from: f.fromDate, to: f.toDate }} />
            </>
          }
        />
        <Outbox />
      </div>
    </>
  );
}
