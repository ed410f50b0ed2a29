"use client";

import {
  assignmentVisibility,
  signatureRequestStates,
  type SignatureRequestListItem,
  type DocumentSummary,
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
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { NewRequestDialog } from "./NewRequestDialog";
import { isOpen, listStatus, mayChange, statusLabel } from "./states";

const FILTER_KEYS = ["status", "visibility", "patient", "document", "institution", "from", "to"] as const;
type RequestFilterForm = ReturnType<typeof useFilterForm<(typeof FILTER_KEYS)[number]>>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const visibilities = assignmentVisibility.options;

/** A request's state: its badge (and "draft"), the signers' progress, when it expires or was completed. */
function RequestStatus({ row }: { row: SignatureRequestListItem }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  const status = listStatus(row, s);
  return (
    <div className={lists.stacked}>
      <span className="cs-row">
        <Badge tone={status.tone}>{status.label}</Badge>
        {row.visibility === "draft" ? <Badge tone="neutral">{s.visibilityDraft}</Badge> : null}
      </span>
      {row.signerProgress && isOpen(row.status) ? (
        <span className="cs-hint">
          {format(s.signerProgress, {
            signed: String(row.signerProgress.signed),
            total: String(row.signerProgress.total),
          })}
        </span>
      ) : null}
      {isOpen(row.status) ? (
        <span className="cs-hint">{format(s.expires, { date: clinic.dateTime(row.expiresAt) })}</span>
      ) : null}
      {row.status === "completed" && row.completedAt ? (
        <span className="cs-hint">{format(s.completedOn, { date: clinic.dateTime(row.completedAt) })}</span>
      ) : null}
    </div>
  );
}

/** The list's columns: created, patient, document (and version), institution, state, open. */
function useRequestColumns(): TableColumn<SignatureRequestListItem>[] {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  return [
    { key: "created", header: s.columnCreated, render: (row) => clinic.dateTime(row.createdAt) },
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
    { key: "status", header: s.columnStatus, render: (row) => <RequestStatus row={row} /> },
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
}

/** The filter fields: status, visibility, patient, document, institution (the known ones offered), created between. */
function RequestFilters({
  form,
  documents,
  institutionIds,
}: {
  form: RequestFilterForm;
  documents: readonly DocumentSummary[];
  institutionIds: readonly string[];
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  return (
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
        options={documents.map((doc) => ({ value: doc.id, label: doc.title || doc.name }))}
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
        {institutionIds.map((institutionId) => (
          <option key={institutionId} value={institutionId} />
        ))}
      </datalist>
      <DateRangeFilter form={form} labels={{ from: s.fromDate, to: s.toDate }} />
    </>
  );
}

/**
 * Signature requests of the whole organization: filters in the URL (status, visibility, patient,
 * document, institution, created between), a cursor-paged table, and "New request" with the
 * hand-over of the link (copy or QR code).
 */
export function SignatureRequestsPage() {
  const { t } = useI18n();
  const clinic = useClinicTime();
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
    useInfiniteQuery(
      trpc.signatures.list.infiniteQueryOptions(
        { ...filter, limit: 50 },
        {
          ...keysetPaging,
          // A patient signs on their own phone while staff look at this list: while a shown request
          // can still move (a signature, the seal), the list asks again, and on coming back to the tab.
          refetchInterval: (query) =>
            query.state.data?.pages.some((page) => page.items.some((row) => mayChange(row.status))) ? 15_000 : false,
          refetchOnWindowFocus: true,
        },
      ),
    ),
  );

  const columns = useRequestColumns();

  return (
    <>
      <PageHeader title={s.pageTitle} description={s.description} actions={<NewRequestDialog />} />
      <div className="cs-stack cs-stack--lg">
        <FilteredList
          form={form}
          texts={s}
          list={list}
          listDescription={clinic.note}
          columns={columns}
          emptyIcon="signature"
          filters={
            <RequestFilters
              form={form}
              documents={documents.data ?? []}
              institutionIds={(institutions.data?.items ?? []).map((item) => item.institutionId)}
            />
          }
        />
      </div>
    </>
  );
}
