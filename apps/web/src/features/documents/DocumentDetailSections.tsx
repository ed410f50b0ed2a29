"use client";

import type { DocumentDetail, DocumentVersionItem } from "@clinsign/contracts";
import { Badge, Button, Card, ConfirmDialog, Fact, Facts, RadioCards, Table, type TableColumn } from "@clinsign/ui";
import Link from "next/link";
import { PageHeader } from "../../components/PageHeader";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { describeApiError, readApiError } from "../../trpc/errors";
import { NewRequestDialog } from "../signature-requests/NewRequestDialog";
import { documentLanguageName } from "./DocumentLanguageSelect";
import styles from "./documents.module.css";
import { AVAILABILITIES, availabilityTone, REQUEST_STATUSES as STATUSES } from "./labels";

type Availability = DocumentDetail["availability"];

/** The document's name, availability, version, pages and language; a new request (when active) and delete. */
export function DocumentHeader({
  doc,
  canDelete,
  onDelete,
}: {
  doc: DocumentDetail;
  canDelete: boolean;
  onDelete(): void;
}) {
  const d = useI18n().t.documentsPage;
  return (
    <PageHeader
      title={doc.name}
      description={
        <>
          <Badge tone={availabilityTone[doc.availability]}>{d.availability[doc.availability]}</Badge>{" "}
          {format(d.versionBadge, { version: doc.currentVersion })} · {d.pages}: {doc.pageCount}
          {doc.language ? ` · ${d.language}: ${documentLanguageName(doc.language)}` : null}
        </>
      }
      actions={
        <>
          {doc.availability === "active" ? <NewRequestDialog documentId={doc.id} label={d.newRequest} /> : null}
          {canDelete ? (
            <Button variant="danger-outline" onClick={onDelete}>
              {d.delete}
            </Button>
          ) : null}
        </>
      }
    />
  );
}

/** Draft, active or inactive, with what each means and whether the change is saving or saved. */
export function AvailabilityCard({
  value,
  disabled,
  saving,
  saved,
  onChange,
}: {
  value: Availability;
  disabled: boolean;
  saving: boolean;
  saved: boolean;
  onChange(availability: Availability): void;
}) {
  const d = useI18n().t.documentsPage;
  return (
    <Card title={d.availabilityTitle} description={d.availabilityApplies}>
      <RadioCards
        legend={d.availabilityTitle}
        name="availability"
        value={value}
        disabled={disabled}
        options={AVAILABILITIES.map((a) => ({
          value: a,
          label: d.availability[a],
          description: d.availabilityHelp[a],
        }))}
        onChange={onChange}
      />
      <p role="status" className="cs-hint" data-testid="availability-state">
        {saving ? d.availabilitySaving : saved ? d.availabilitySaved : null}
      </p>
    </Card>
  );
}

/** How many of the document's requests are in each status, each count leading to those requests. */
export function RequestCountsCard({ doc }: { doc: DocumentDetail }) {
  const d = useI18n().t.documentsPage;
  return (
    <Card title={d.requestsTitle} description={d.requestsDescription}>
      <ul className={styles.counts}>
        {STATUSES.map((status) => (
          <li key={status}>
            {/* Named by what it shows ("3 Pending"), then where it leads (WCAG 2.5.3: the name contains the text). */}
            <Link className={styles.count} href={`/signature-requests?document=${doc.id}&status=${status}`}>
              <span className={styles.countNumber}>{doc.requestCounts[status]}</span>{" "}
              <span className="cs-hint">{d.status[status]}</span>
              <span className="cs-visually-hidden"> — {d.showRequests}</span>
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** Every version of the document, the current one marked, with how many requests each pins. */
export function VersionHistoryCard({ doc }: { doc: DocumentDetail }) {
  const d = useI18n().t.documentsPage;
  const clinic = useClinicTime();
  const columns: TableColumn<DocumentVersionItem>[] = [
    {
      key: "version",
      header: d.columnVersion,
      render: (v) => (
        <>
          {v.version} {v.version === doc.currentVersion ? <Badge tone="accent">{d.currentVersion}</Badge> : null}
        </>
      ),
    },
    { key: "title", header: d.titleLabel, render: (v) => v.title },
    {
      key: "language",
      header: d.columnLanguage,
      render: (v) => (v.language ? documentLanguageName(v.language) : d.languageNone),
    },
    { key: "fields", header: d.columnFields, render: (v) => v.fields.length },
    { key: "pinned", header: d.columnPinned, render: (v) => v.pinnedRequests },
    { key: "created", header: d.columnCreated, render: (v) => clinic.dateTime(v.createdAt) },
  ];
  return (
    <Card title={d.versionsTitle} description={clinic.note} flush>
      <Table caption={d.versionsTitle} columns={columns} rows={doc.versions} rowKey={(v) => v.version} />
    </Card>
  );
}

/** The current version's SHA-256, to compare the PDF with a copy. */
export function FingerprintCard({ sha256 }: { sha256: string }) {
  const d = useI18n().t.documentsPage;
  return (
    <Card>
      <Facts>
        <Fact term={d.sha256} className="cs-mono">
          {sha256}
        </Fact>
      </Facts>
    </Card>
  );
}

/** Deleting the document: confirmed, and refused with the API's reason while requests exist. */
export function DeleteDocumentDialog({
  name,
  open,
  busy,
  refusal,
  error,
  onCancel,
  onConfirm,
}: {
  name: string;
  open: boolean;
  busy: boolean;
  /** The API's reason when it refused (the document still has requests); undefined when it did not. */
  refusal: string | undefined;
  error: unknown;
  onCancel(): void;
  onConfirm(): void;
}) {
  const { t } = useI18n();
  const d = t.documentsPage;
  return (
    <ConfirmDialog
      open={open}
      onCancel={onCancel}
      onConfirm={onConfirm}
      title={format(d.deleteTitle, { name })}
      description={d.deleteBody}
      confirmLabel={d.deleteConfirm}
      cancelLabel={t.common.cancel}
      closeLabel={t.common.close}
      busy={busy}
      confirmDisabled={refusal !== undefined}
      error={
        refusal !== undefined
          ? format(d.deleteRefused, { reason: refusal })
          : error
            ? describeApiError(readApiError(error), t)
            : null
      }
    />
  );
}
