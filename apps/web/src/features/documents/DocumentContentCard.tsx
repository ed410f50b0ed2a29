"use client";

import type { DocumentDetail } from "@clinsign/contracts";
import { Badge, Button, Card, Notice, TextField } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import type { DocumentDraft } from "./document-draft";
import type { EditorField } from "./editor-fields";
import { DocumentLanguageSelect } from "./DocumentLanguageSelect";
import styles from "./documents.module.css";
import { fieldEditorLabels } from "./labels";
import { LazyFieldPlacementEditor } from "./LazyFieldPlacementEditor";

/**
 * The document's title, description, language and signature fields (placed on the rendered PDF),
 * saved together as a new version; says which requests follow the change before it is saved.
 */
export function DocumentContentCard({
  doc,
  draft,
  dirty,
  pdf,
  pdfFailed,
  canSave,
  saving,
  onDraftChange,
  onSave,
}: {
  doc: DocumentDetail;
  draft: DocumentDraft;
  dirty: boolean;
  /** The current version's PDF, once loaded. */
  pdf: Uint8Array | undefined;
  pdfFailed: boolean;
  /** The person may save (the save row is hidden otherwise). */
  canSave: boolean;
  saving: boolean;
  onDraftChange(draft: DocumentDraft): void;
  onSave(): void;
}) {
  const { t } = useI18n();
  const d = t.documentsPage;
  return (
    <Card title={d.contentTitle} description={d.contentDescription}>
      <form
        className="cs-stack"
        onSubmit={(event) => {
          event.preventDefault();
          onSave();
        }}
      >
        <div className={styles.formGrid}>
          <TextField
            label={d.titleLabel}
            value={draft.title}
            maxLength={200}
            required
            onChange={(event) => onDraftChange({ ...draft, title: event.target.value })}
          />
          <TextField
            label={d.descriptionLabel}
            value={draft.description}
            maxLength={2000}
            onChange={(event) => onDraftChange({ ...draft, description: event.target.value })}
          />
          <DocumentLanguageSelect
            value={draft.language}
            onChange={(language) => onDraftChange({ ...draft, language })}
          />
        </div>
        <StoredPdfFields
          pdf={pdf}
          failed={pdfFailed}
          fields={draft.fields}
          onChange={(fields) => onDraftChange({ ...draft, fields })}
        />
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
        <SaveVersionRow
          hidden={!canSave}
          saving={saving}
          dirty={dirty}
          ready={draft.fields.length > 0 && draft.title.trim() !== ""}
          nextVersion={doc.currentVersion + 1}
        />
      </form>
    </Card>
  );
}

/** The field editor on the stored PDF, or why it is not there yet (loading, or the PDF failed). */
function StoredPdfFields({
  pdf,
  failed,
  fields,
  onChange,
}: {
  pdf: Uint8Array | undefined;
  failed: boolean;
  fields: EditorField[];
  onChange(fields: EditorField[]): void;
}) {
  const { t } = useI18n();
  const d = t.documentsPage;
  if (pdf)
    return (
      <LazyFieldPlacementEditor
        data={pdf}
        fields={fields}
        onChange={onChange}
        labels={fieldEditorLabels(d, t.signing.signerRoles)}
      />
    );
  return failed ? (
    <Notice tone="danger" role="alert">
      {d.pdfFailed}
    </Notice>
  ) : (
    <p role="status" className="cs-hint">
      {d.pdfLoading}
    </p>
  );
}

/** Save as the next version (once there is a change and the draft can be saved), and whether anything changed. */
function SaveVersionRow({
  hidden,
  saving,
  dirty,
  ready,
  nextVersion,
}: {
  hidden: boolean;
  saving: boolean;
  dirty: boolean;
  /** The draft has a title and at least one field. */
  ready: boolean;
  nextVersion: number;
}) {
  const d = useI18n().t.documentsPage;
  return (
    <div className={styles.actions} hidden={hidden}>
      <Button type="submit" variant="primary" busy={saving} disabled={!dirty || !ready}>
        {format(d.save, { version: nextVersion })}
      </Button>
      {dirty ? <Badge tone="warning">{d.unsaved}</Badge> : <span className="cs-hint">{d.unchanged}</span>}
    </div>
  );
}
