import type {
  DocumentDetail,
  DocumentListItem,
  DocumentRequestCounts,
  ListDocumentsInput,
  ListPage,
  ListSort,
} from "@clinsign/contracts";
import {
  and,
  count,
  documents,
  documentVersions,
  eq,
  getTableColumns,
  ilike,
  inArray,
  isNotNull,
  isNull,
  or,
  signatureRequests,
  sql,
} from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { page } from "../lists/keyset";
import { findDocument, findVersion, toSummary } from "./documents";
import { recordClassOf } from "./record-class";
import { pinnedDocumentIdColumn } from "../signatures/request-read";

/**
 * The Documents section's reads: the list on the staff list contract, one document with its
 * versions and what its requests do when it changes, and a stored version's PDF for the field
 * editor. Writes go through the same services as A6 and A8–A10 (documents.ts).
 */

type Status = keyof DocumentRequestCounts;
const STATUSES: Status[] = ["pending", "opened", "sealing", "completed", "declined", "expired"];
const noRequests = (): DocumentRequestCounts => ({
  pending: 0,
  opened: 0,
  sealing: 0,
  completed: 0,
  declined: 0,
  expired: 0,
});

/** `%`, `_` and `\` in a search are text, not wildcards. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Requests per document and status, for the documents on one page (one grouped query). */
async function requestCountsOf(ctx: OrgContext, documentIds: string[]): Promise<Map<string, DocumentRequestCounts>> {
  const counts = new Map<string, DocumentRequestCounts>(documentIds.map((id) => [id, noRequests()]));
  if (documentIds.length === 0) return counts;
  const rows = await ctx.scope
    .query({ documentId: signatureRequests.documentId, status: signatureRequests.status, n: count() })
    .from(signatureRequests)
    .where(inArray(signatureRequests.documentId, documentIds))
    .groupBy(signatureRequests.documentId, signatureRequests.status);
  for (const row of rows) {
    const entry = counts.get(row.documentId);
    if (entry && STATUSES.includes(row.status)) entry[row.status] = Number(row.n);
  }
  return counts;
}

/** Staff: the organization's documents, newest first, by name/title search and availability. */
export async function listDocumentPage(
  ctx: OrgContext,
  input: ListDocumentsInput & { limit: number; sort: ListSort },
): Promise<ListPage<DocumentListItem>> {
  const current = and(
    eq(documentVersions.documentId, documents.id),
    eq(documentVersions.version, documents.currentVersion),
  );
  const search = input.search ? likePattern(input.search) : undefined;
  const query = ctx.scope
    .query({
      doc: getTableColumns(documents),
      title: documentVersions.title,
      pageCount: documentVersions.pageCount,
      language: documentVersions.language,
      fieldCount: sql<number>`jsonb_array_length(${documentVersions.fields})`,
    })
    .from(documents)
    .innerJoin(documentVersions, current)
    .where(
      input.availability ? eq(documents.availability, input.availability) : undefined,
      search ? or(ilike(documents.name, search), ilike(documentVersions.title, search)) : undefined,
    );
  const found = await page(query, [documents.createdAt, documents.id], input, (row) => row);
  const counts = await requestCountsOf(
    ctx,
    found.items.map((row) => row.doc.id),
  );
  return {
    ...found,
    items: found.items.map((row) => ({
      id: row.doc.id,
      name: row.doc.name,
      title: row.title,
      availability: row.doc.availability,
      currentVersion: row.doc.currentVersion,
      pageCount: row.pageCount,
      fieldCount: Number(row.fieldCount),
      language: row.language,
      requestCounts: counts.get(row.doc.id)!,
      createdAt: row.doc.createdAt.toISOString(),
      updatedAt: row.doc.updatedAt.toISOString(),
    })),
  };
}

/** A document can have at most a few hundred versions in practice; the detail lists them all. */
const MAX_VERSIONS_SHOWN = 500;

/** Staff: one document, its versions, and which of its requests follow the next saved version. */
export async function getDocumentDetail(ctx: OrgContext, input: { id: string }): Promise<DocumentDetail> {
  const doc = await findDocument(ctx, input.id);
  const [current, versions, pinned, counts] = await Promise.all([
    findVersion(ctx, doc.id, doc.currentVersion),
    ctx.scope
      .select(documentVersions, eq(documentVersions.documentId, doc.id))
      .orderBy(sql`${documentVersions.version} desc`)
      .limit(MAX_VERSIONS_SHOWN),
    ctx.scope
      .query({ version: signatureRequests.pinnedVersion, n: count() })
      .from(signatureRequests)
      // Pinned to this document's versions: as A1's document or as one in the patient's language.
      .where(eq(pinnedDocumentIdColumn, doc.id), isNotNull(signatureRequests.pinnedVersion))
      .groupBy(signatureRequests.pinnedVersion),
    requestCountsOf(ctx, [doc.id]),
  ]);
  // A request pins its version when the patient opens it; until then it follows the newest one.
  const [following] = await ctx.scope
    .query({ n: count() })
    .from(signatureRequests)
    .where(
      eq(signatureRequests.documentId, doc.id),
      eq(signatureRequests.status, "pending"),
      isNull(signatureRequests.pinnedVersion),
    );
  const [pinnedOpen] = await ctx.scope
    .query({ n: count() })
    .from(signatureRequests)
    .where(
      eq(pinnedDocumentIdColumn, doc.id),
      inArray(signatureRequests.status, ["pending", "opened"]),
      isNotNull(signatureRequests.pinnedVersion),
    );
  const pinnedByVersion = new Map(pinned.map((row) => [row.version, Number(row.n)]));
  return {
    ...toSummary(doc, current),
    versions: versions.map((v) => ({
      version: v.version,
      title: v.title,
      description: v.description,
      fields: v.fields,
      language: v.language,
      createdAt: v.createdAt.toISOString(),
      pinnedRequests: pinnedByVersion.get(v.version) ?? 0,
    })),
    requestCounts: counts.get(doc.id)!,
    followingRequests: Number(following?.n ?? 0),
    pinnedOpenRequests: Number(pinnedOpen?.n ?? 0),
    recordClass: recordClassOf(doc),
  };
}

/** Staff: the stored PDF of a document version (the current one by default), for the field editor. */
export async function readDocumentPdf(
  ctx: OrgContext,
  input: { id: string; version?: number },
): Promise<{ storageKey: string; version: number; sha256: string }> {
  const doc = await findDocument(ctx, input.id);
  const version = input.version ?? doc.currentVersion;
  if (!Number.isSafeInteger(version) || version < 1 || version > doc.currentVersion) {
    throw new AppError("not_found", `the document has no version ${version}`, { field: "version" });
  }
  const row = await findVersion(ctx, doc.id, version);
  return { storageKey: row.storageKey, version, sha256: row.sha256 };
}
