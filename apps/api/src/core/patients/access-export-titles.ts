import type { PatientLanguage } from "@clinsign/contracts";
import { documents, documentVersions, templates } from "@clinsign/db";
import type { OrgContext } from "../context";
import { inList } from "./record-filters";

/** What the overview page calls a record by: a form's title, a signed document's title. */
export interface ExportTitles {
  /** A form's title by template identifier, in the page's language where the form has it. */
  form(identifier: string): string | null;
  /** The title of the document a signature request showed the patient (its pinned version, else the newest). */
  document(request: {
    documentId: string;
    pinnedDocumentId: string | null;
    pinnedVersion: number | null;
  }): string | null;
}

/** A template's or submission's own title in `language`, where its translations hold one. */
export function translatedTitle(translations: unknown, language: PatientLanguage): string | null {
  if (!translations || typeof translations !== "object") return null;
  const title = (translations as Record<string, { title?: unknown } | undefined>)[language]?.title;
  return typeof title === "string" && title.trim() ? title : null;
}

/**
 * The titles of the forms and documents the patient's records name, read in three queries
 * (templates, documents, their versions) for the whole export.
 */
export async function exportTitles(
  ctx: OrgContext,
  input: { templateIdentifiers: Iterable<string>; documentIds: Iterable<string>; language: PatientLanguage },
): Promise<ExportTitles> {
  const identifiers = [...new Set(input.templateIdentifiers)];
  const documentIds = [...new Set(input.documentIds)];
  const templateRows = identifiers.length
    ? await ctx.scope
        .query({ identifier: templates.identifier, title: templates.title, translations: templates.translations })
        .from(templates)
        .where(inList(templates.identifier, identifiers, "text"))
    : [];
  const documentRows = documentIds.length
    ? await ctx.scope
        .query({ id: documents.id, name: documents.name, currentVersion: documents.currentVersion })
        .from(documents)
        .where(inList(documents.id, documentIds))
    : [];
  const versionRows = documentIds.length
    ? await ctx.scope
        .query({
          documentId: documentVersions.documentId,
          version: documentVersions.version,
          title: documentVersions.title,
        })
        .from(documentVersions)
        .where(inList(documentVersions.documentId, documentIds))
    : [];
  const forms = new Map(
    templateRows.map((t) => [t.identifier, translatedTitle(t.translations, input.language) ?? t.title]),
  );
  const docs = new Map(documentRows.map((d) => [d.id, d]));
  const versions = new Map(versionRows.map((v) => [`${v.documentId}:${v.version}`, v.title]));
  return {
    form: (identifier) => forms.get(identifier) ?? null,
    document: (request) => {
      const id = request.pinnedDocumentId ?? request.documentId;
      const doc = docs.get(id);
      const version = request.pinnedVersion ?? doc?.currentVersion;
      return versions.get(`${id}:${version}`) ?? doc?.name ?? null;
    },
  };
}
