"use client";

import type { DocumentDetail, DocumentVersionItem } from "@clinsign/contracts";
import {
  Badge,
  Button,
  Card,
  ConfirmDialog,
  Fact,
  Facts,
  LiveRegion,
  Notice,
  RadioCards,
  Table,
  type TableColumn,
  TextField,
} from "@clinsign/ui";
import type { EditorField } from "./FieldPlacementEditor";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { DetailStates, retryDetail } from "../../components/DetailStates";
import { NewRequestDialog } from "../signature-requests/NewRequestDialog";
import { PageHeader } from "../../components/PageHeader";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { availabilityTone } from "./DocumentsPage";
import styles from "./documents.module.css";
import { AVAILABILITIES, fieldEditorLabels, REQUEST_STATUSES as STATUSES } from "./labels";
import { DocumentLanguageSelect, documentLanguageName } from "./DocumentLanguageSelect";
import type { PatientLanguage } from "@clinsign/contracts/language-list";
import { useCan } from "../../components/admin-shell/SessionContext";

const FieldPlacementEditor = dynamic(() => import("./FieldPlacementEditor").then((m) => m.FieldPlacementEditor), {
  ssr: false,
});

interface Draft {
  title: string;
  description: string;
  fields: EditorField[];
  language: PatientLanguage | null;
}

const draftOf = (doc: DocumentDetail): Draft => ({
  title: doc.title,
  description: doc.description ?? "",
  fields: doc.fields,
  language: doc.language,
});

/** The stored PDF of the current version, for the field editor (GET /staff/documents/<id>/pdf). */
async function fetchDocumentPdf(id: string, version: number): Promise<Uint8Array> {
  const response = await fetch(`/staff/documents/${id}/pdf?version=${version}`, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * One document: availability, title/description/fields edited on the rendered PDF (saving makes
 * a new version, and the page says which requests follow it), its requests by status, the version
 * history, and delete (refused while requests exist, with the reason shown).
 */
export function DocumentDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const d = t.documentsPage;
  const trpc = useTRPC();
  const can = useCan();
  const queryClient = useQueryClient();
  const router = useRouter();
  const justCreated = useSearchParams().get("created") === "1";
  const detail = useQuery(trpc.documents.detail.queryOptions({ id }, { retry: retryDetail }));
  const doc = detail.data;
  const pdf = useQuery({
    queryKey: ["document-pdf", id, doc?.currentVersion],
    queryFn: () => fetchDocumentPdf(id, doc!.currentVersion),
    enabled: doc !== undefined,
    staleTime: Infinity,
  });

  const [draft, setDraft] = useState<Draft | null>(null);
  const [loadedVersion, setLoadedVersion] = useState<number | null>(null);
  // The editor starts from the stored version, and again after each save.
  if (doc && doc.currentVersion !== loadedVersion) {
    setLoadedVersion(doc.currentVersion);
    setDraft(draftOf(doc));
  }
  const dirty = doc !== undefined && draft !== null && JSON.stringify(draft) !== JSON.stringify(draftOf(doc));
  useLeaveGuard(dirty, d.leaveWarning);

  const [announcement, setAnnouncement] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
  const save = useMutation(
    trpc.documents.update.mutationOptions({
      onSuccess: async () => {
        await refresh();
        setAnnouncement(format(d.saved, { version: (doc?.currentVersion ?? 0) + 1 }));
      },
    }),
  );
  // The choice shows at once; it goes back if the change is refused.
  const [chosenAvailability, setChosenAvailability] = useState<DocumentDetail["availability"] | null>(null);
  const setAvailability = useMutation(
    trpc.documents.setAvailability.mutationOptions({
      onSuccess: async (result) => {
        await refresh();
        setAnnouncement(format(d.availabilityChanged, { availability: d.availability[result.availability] }));
      },
      onSettled: () => setChosenAvailability(null),
    }),
  );
  const remove = useMutation(
    trpc.documents.delete.mutationOptions({
      onSuccess: (result) => {
        if (result.deleted) router.push("/documents");
      },
    }),
  );
  const failure = [save, setAvailability].find((m) => m.isError)?.error;

  const back = (
    <Link href="/documents" className={styles.backLink}>
      ← {d.backToList}
    </Link>
  );
  if (detail.isPending || detail.error || !doc || !draft) {
    return (
      <DetailStates query={detail} back={back} title={d.pageTitle} icon="document" notFound={{ title: d.notFound }} />
    );
  }

  function submitSave() {
    if (!doc || !draft) return;
    const saved = draftOf(doc);
    save.mutate({
      id,
      ...(draft.title !== saved.title && { title: draft.title.trim() }),
      ...(draft.description !== saved.description && { description: draft.description.trim() || null }),
      ...(JSON.stringify(draft.fields) !== JSON.stringify(saved.fields) && { fields: draft.fields }),
      ...(draft.language !== saved.language && { language: draft.language }),
    });
  }

  const versionColumns: TableColumn<DocumentVersionItem>[] = [
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
    <>
      {back}
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
            {can("documents.delete") ? (
              <Button variant="danger-outline" onClick={() => setDeleting(true)}>
                {d.delete}
              </Button>
            ) : null}
          </>
        }
      />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion>
          {announcement ? (
            <Notice tone="success">{announcement}</Notice>
          ) : justCreated ? (
            <Notice tone="info">{d.createdNotice}</Notice>
          ) : null}
        </LiveRegion>
        {failure ? (
          <Notice tone="danger" role="alert">
            {readApiError(failure).code === "BAD_REQUEST"
              ? readApiError(failure).message
              : describeApiError(readApiError(failure), t)}
          </Notice>
        ) : null}

        <Card title={d.availabilityTitle} description={d.availabilityApplies}>
          <RadioCards
            legend={d.availabilityTitle}
            name="availability"
            value={chosenAvailability ?? doc.availability}
            disabled={setAvailability.isPending || !can("documents.setAvailability")}
            options={AVAILABILITIES.map((a) => ({
              value: a,
              label: d.availability[a],
              description: d.availabilityHelp[a],
            }))}
            onChange={(availability) => {
              setChosenAvailability(availability);
              setAvailability.mutate({ id, availability });
            }}
          />
          <p role="status" className="cs-hint" data-testid="availability-state">
            {setAvailability.isPending ? d.availabilitySaving : setAvailability.isSuccess ? d.availabilitySaved : null}
          </p>
        </Card>

        <Card title={d.contentTitle} description={d.contentDescription}>
          <form
            className="cs-stack"
            onSubmit={(event) => {
              event.preventDefault();
              submitSave();
            }}
          >
            <div className={styles.formGrid}>
              <TextField
                label={d.titleLabel}
                value={draft.title}
                maxLength={200}
                required
                onChange={(event) => setDraft({ ...draft, title: event.target.value })}
              />
              <TextField
                label={d.descriptionLabel}
                value={draft.description}
                maxLength={2000}
                onChange={(event) => setDraft({ ...draft, description: event.target.value })}
              />
              <DocumentLanguageSelect
                value={draft.language}
                onChange={(language) => setDraft({ ...draft, language })}
              />
            </div>
            {pdf.data ? (
              <FieldPlacementEditor
                data={pdf.data}
                fields={draft.fields}
                onChange={(fields) => setDraft({ ...draft, fields })}
                labels={fieldEditorLabels(d, t.signing.signerRoles)}
              />
            ) : pdf.isError ? (
              <Notice tone="danger" role="alert">
                {d.pdfFailed}
              </Notice>
            ) : (
              <p role="status" className="cs-hint">
                {d.pdfLoading}
              </p>
            )}
            {dirty ? (
              <Notice tone="info">
                {format(d.followNotice, { following: doc.followingRequests, pinned: doc.pinnedOpenRequests })}
              </Notice>
            ) : null}
            {draft.fields.length === 0 ? (
              <Notice tone="warning" role="alert">
                {d.needAField}
              </Notice>
            ) : null}
            <div className={styles.actions} hidden={!can("documents.update")}>
              <Button
                type="submit"
                variant="primary"
                busy={save.isPending}
                disabled={!dirty || draft.fields.length === 0 || !draft.title.trim()}
              >
                {format(d.save, { version: doc.currentVersion + 1 })}
              </Button>
              {dirty ? <Badge tone="warning">{d.unsaved}</Badge> : <span className="cs-hint">{d.unchanged}</span>}
            </div>
          </form>
        </Card>

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

        <Card title={d.versionsTitle} description={clinic.note} flush>
          <Table caption={d.versionsTitle} columns={versionColumns} rows={doc.versions} rowKey={(v) => v.version} />
        </Card>

        <Card>
          <Facts>
            <Fact term={d.sha256} className="cs-mono">
              {doc.sha256}
            </Fact>
          </Facts>
        </Card>
      </div>
      <ConfirmDialog
        open={deleting}
        onCancel={() => {
          setDeleting(false);
          remove.reset();
        }}
        onConfirm={() => remove.mutate({ id })}
        title={format(d.deleteTitle, { name: doc.name })}
        description={d.deleteBody}
        confirmLabel={d.deleteConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={remove.isPending}
        confirmDisabled={remove.data?.deleted === false}
        error={
          remove.data?.deleted === false
            ? format(d.deleteRefused, { reason: remove.data.reason ?? "" })
            : remove.isError
              ? describeApiError(readApiError(remove.error), t)
              : null
        }
      />
    </>
  );
}
