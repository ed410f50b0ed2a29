import type { DocumentDetail, UpdateDocumentInput } from "@clinsign/contracts";
import type { PatientLanguage } from "@clinsign/contracts/language-list";
import { useState } from "react";
import type { EditorField } from "./editor-fields";

/** What the document page edits before saving it as a new version. */
export interface DocumentDraft {
  title: string;
  description: string;
  fields: EditorField[];
  language: PatientLanguage | null;
}

/** What of the stored document a draft edits. */
type StoredContent = Pick<DocumentDetail, "title" | "description" | "fields" | "language">;

/** The stored version as a draft. */
export const draftOf = (doc: StoredContent): DocumentDraft => ({
  title: doc.title,
  description: doc.description ?? "",
  fields: doc.fields,
  language: doc.language,
});

/** True when the draft differs from the stored version. */
export const isDraftChanged = (draft: DocumentDraft, doc: StoredContent) =>
  JSON.stringify(draft) !== JSON.stringify(draftOf(doc));

/** What saving the draft sends: only what changed (text trimmed, an empty description cleared). */
export function draftChanges(draft: DocumentDraft, doc: StoredContent): Omit<UpdateDocumentInput, "id"> {
  const saved = draftOf(doc);
  return {
    ...(draft.title !== saved.title && { title: draft.title.trim() }),
    ...(draft.description !== saved.description && { description: draft.description.trim() || null }),
    ...(JSON.stringify(draft.fields) !== JSON.stringify(saved.fields) && { fields: draft.fields }),
    ...(draft.language !== saved.language && { language: draft.language }),
  };
}

/**
 * The document page's draft: it starts from the stored version, and again after each save (a save
 * makes a new current version). Null until the document is loaded.
 */
export function useDocumentDraft(doc: DocumentDetail | undefined) {
  const [draft, setDraft] = useState<DocumentDraft | null>(null);
  const [loadedVersion, setLoadedVersion] = useState<number | null>(null);
  if (doc && doc.currentVersion !== loadedVersion) {
    setLoadedVersion(doc.currentVersion);
    setDraft(draftOf(doc));
  }
  const dirty = doc !== undefined && draft !== null && isDraftChanged(draft, doc);
  return { draft, setDraft, dirty };
}
