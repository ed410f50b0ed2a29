"use client";

import {
  assignmentVisibility,
  signatureRequestStates,
  type SignatureRequestListItem,
  type SignatureRequestState,
} from "@clinsign/contracts";
import { Badge, keysetPaging, SelectField, TextField, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DateRangeFilter } from "../../components/lists/filters";
import { FilteredList } from "../../components/lists/FilteredList";
import lists from "../../components/lists/lists.module.css";
import { createdBetween, useFilterForm } from "../../components/lists/url-filters";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { NewRequestDialog } from "./NewRequestDialog";
import { isOpen, statusLabel, statusTone } from "./states";

const FILTER_KEYS = ["status", "visibility", "patient", "document", "institution", "from", "to"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const visibilities = assignmentVisibility.options;

/**
 * Signature requests of the whole organization: filters in the URL (status, visibility, patient,
 * document, institution, created between), a cursor-paged table, and "New request" with the
 * hand-over of the link (copy or QR code).
 */
export function SignatureRequestsPage() {
  const { t, locale } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const form = useFilterForm(FILTER_KEYS);
  const { values } = form;
  const filter = {
    status: signatureRequestStates.find((state) => state === values.status) as SignatureRequestState | undefined,
    visibility: visibilities.find((v) => v === values.visibility),
    patientId: values.patient.trim() || undefined,
    // A document id mistyped into the URL would be a 400 for the whole list: it is left out.
    documentId: UUID.test(values.document) ? values.document : undefined,
    institutionId: values.institution.trim() || undefined,
    ...createdBetween(values),
  };
  const documents = useQuery(trpc.documents.list.queryOptions({ limit: 500 }));
  const institutions = useQuery(trpc.signatures.institutions.queryOptions({ limit: 200 }));
  const list = useStaffList(
    useInfiniteQuery(trpc.signatures.list.infiniteQueryOptions({ ...filter, limit: 50 }, keysetPaging)),
  );

  const columns: TableColumn<SignatureRequestListItem>[] = [
    { key: "created", header: s.columnCreated, render: (row) => formatDateTime(row.createdAt, locale) },
    { key: "patient", header: s.columnPatient, render: (row) => <span className="cs-mono">{row.patientId}</span> },
    {
      key: "document",
      header: s.columnDocument,
      render: (row) => (
        <div className={lists.stacked}>
          <span>{row.documentName}</span>
          <span className="cs-hint">{format(s.version, { version: String(row.documentVersion) })}</span>
        </div>
      ),
    },
    { key: "institution", header: s.columnInstitution, render: (row) => row.institutionId },
    {
      key: "status",
      header: s.columnStatus,
      render: (row) => (
        <div className={lists.stacked}>
          <span className="cs-row">
            <Badge tone={statusTone(row.status)}>{statusLabel(row.status, s)}</Badge>
            {row.visibility === "draft" ? <Badge tone="neutral">{s.visibilityDraft}</Badge> : null}
          </span>
          {isOpen(row.status) ? (
            <span className="cs-hint">{format(s.expires, { date: formatDateTime(row.expiresAt, locale) })}</span>
          ) : null}
          {row.status === "completed" && row.completedAt ? (
            <span className="cs-hint">{format(s.completedOn, { date: formatDateTime(row.completedAt, locale) })}</span>
          ) : null}
        </div>
      ),
    },
    {
      key: "open",
      header: s.open,
      end: true,
      render: (row) => (
        <Link
          className="cs-button cs-button--secondary cs-button--small"
          href={`/signature-requests/${row.id}`}
          aria-label={format(s.openLabel, { patient: row.patientId, document: row.documentName })}
        >
          {s.open}
        </Link>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={s.pageTitle} description={s.description} actions={<NewRequestDialog />} />
      <div className="cs-stack cs-stack--lg">
        <FilteredList
          form={form}
          texts={s}
          list={list}
          columns={columns}
          emptyIcon="signature"
          filters={
            <>
              <SelectField
                id="filter-status"
                label={s.status}
                placeholder={s.allStatuses}
                options={signatureRequestStates.map((state) => ({ value: state, label: statusLabel(state, s) }))}
                {...form.field("status")}
              />
              <SelectField
                id="filter-visibility"
                label={s.visibility}
                placeholder={s.allVisibilities}
                options={[
                  { value: "active", label: s.visibilityActive },
                  { value: "draft", label: s.visibilityDraft },
                ]}
                {...form.field("visibility")}
              />
              <TextField label={s.patientId} {...form.field("patient")} maxLength={200} autoComplete="off" />
              <SelectField
                id="filter-document"
                label={s.document}
                placeholder={s.allDocuments}
                options={(documents.data ?? []).map((doc) => ({ value: doc.id, label: doc.title || doc.name }))}
                keepUnknownValue
                {...form.field("document")}
              />
              <TextField
                label={s.institutionId}
                {...form.field("institution")}
                maxLength={200}
                autoComplete="off"
                list="filter-institutions"
              />
              <datalist id="filter-institutions">
                {(institutions.data?.items ?? []).map((item) => (
                  <option key={item.institutionId} value={item.institutionId} />
                ))}
              </datalist>
              <DateRangeFilter form={form} labels={{ from: s.fromDate, to: s.toDate }} />
            </>
          }
        />
      </div>
    </>
  );
}
