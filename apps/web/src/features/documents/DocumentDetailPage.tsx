"use client";

import { LiveRegion, Notice } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { DetailStates, retryDetail } from "../../components/DetailStates";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { useCan } from "../../components/admin-shell/SessionContext";
import { draftChanges, useDocumentDraft } from "./document-draft";
import { DocumentContentCard } from "./DocumentContentCard";
import {
  AvailabilityCard,
  DeleteDocumentDialog,
  DocumentHeader,
  FingerprintCard,
  RequestCountsCard,
  VersionHistoryCard,
} from "./DocumentDetailSections";
import styles from "./documents.module.css";
import { RecordClassCard } from "./RecordClassCard";
import { RefusalNotice } from "./RefusalNotice";
import { useDocumentChanges } from "./useDocumentChanges";

/** The stored PDF of the current version, for the field editor (GET /staff/documents/<id>/pdf). */
async function fetchDocumentPdf(id: string, version: number): Promise<Uint8Array> {
  const response = await fetch(`/staff/documents/${id}/pdf?version=${version}`, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The PDF of the document's current version, once the document is loaded; kept until a new version. */
const useDocumentPdf = (id: string, version: number | undefined) =>
  useQuery({
    queryKey: ["document-pdf", id, version],
    queryFn: () => fetchDocumentPdf(id, version!),
    enabled: version !== undefined,
    staleTime: Infinity,
  });

/**
 * One document: availability, title/description/fields edited on the rendered PDF (saving makes
 * a new version, and the page says which requests follow it), its requests by status, the version
 * history, and delete (refused while requests exist, with the reason shown).
 */
export function DocumentDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const d = t.documentsPage;
  const trpc = useTRPC();
  const can = useCan();
  const justCreated = useSearchParams().get("created") === "1";
  const detail = useQuery(trpc.documents.detail.queryOptions({ id }, { retry: retryDetail }));
  const doc = detail.data;
  const pdf = useDocumentPdf(id, doc?.currentVersion);
  const { draft, setDraft, dirty } = useDocumentDraft(doc);
  useLeaveGuard(dirty, d.leaveWarning);
  const changes = useDocumentChanges(id, doc?.currentVersion);
  const { save, setAvailability, remove } = changes;
  const [deleting, setDeleting] = useState(false);

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

  return (
    <>
      {back}
      <DocumentHeader doc={doc} canDelete={can("documents.delete")} onDelete={() => setDeleting(true)} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion>
          {changes.announcement ? (
            <Notice tone="success">{changes.announcement}</Notice>
          ) : justCreated ? (
            <Notice tone="info">{d.createdNotice}</Notice>
          ) : null}
        </LiveRegion>
        <RefusalNotice error={[save, setAvailability].find((m) => m.isError)?.error} />
        <AvailabilityCard
          value={changes.chosenAvailability ?? doc.availability}
          disabled={setAvailability.isPending || !can("documents.setAvailability")}
          saving={setAvailability.isPending}
          saved={setAvailability.isSuccess}
          onChange={changes.chooseAvailability}
        />
        <DocumentContentCard
          doc={doc}
          draft={draft}
          dirty={dirty}
          pdf={pdf.data}
          pdfFailed={pdf.isError}
          canSave={can("documents.update")}
          saving={save.isPending}
          onDraftChange={setDraft}
          onSave={() => save.mutate({ id, ...draftChanges(draft, doc) })}
        />
        <RecordClassCard doc={doc} canEdit={can("documents.setRecordClass")} />
        <RequestCountsCard doc={doc} />
        <VersionHistoryCard doc={doc} />
        <FingerprintCard sha256={doc.sha256} />
      </div>
      <DeleteDocumentDialog
        name={doc.name}
        open={deleting}
        busy={remove.isPending}
        refusal={remove.data?.deleted === false ? (remove.data.reason ?? "") : undefined}
        error={remove.error}
        onCancel={() => {
          setDeleting(false);
          remove.reset();
        }}
        onConfirm={() => remove.mutate({ id })}
      />
    </>
  );
}
