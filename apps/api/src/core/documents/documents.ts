import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type {
  createDocumentInput,
  DeleteDocumentOutput,
  DocumentSummary,
  SigningFieldRect,
  updateDocumentInput,
} from "@clinsign/contracts";
import {
  and,
  desc,
  documents,
  documentVersions,
  eq,
  or,
  signatureRequests,
  sql,
  type DocumentAvailability,
  type DocumentLanguage,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import { checkFieldsFit, inspectPdf } from "./pdf";
import { deletePageImages, queuePageImages } from "./page-images";

/** Size cap and timeout for fetching a document's PDF from the caller's URL (A6). */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;

type DocumentRow = typeof documents.$inferSelect;
/** A6's input as the door parsed it. */
export type CreateDocumentInput = z.output<typeof createDocumentInput>;
/** A8's input as the door parsed it. */
export type UpdateDocumentInput = z.output<typeof updateDocumentInput>;
type VersionRow = typeof documentVersions.$inferSelect;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Our ids are UUIDs; anything else cannot name one of ours (and must not reach a uuid column). */
export const isUuid = (value: string) => UUID.test(value);

const FETCH_FAILURES: Record<string, string> = {
  invalid_url: "must be an https URL (or an allow-listed host)",
  blocked_address: "points at a private, loopback or link-local address, which is not allowed",
  timeout: `did not answer within ${FETCH_TIMEOUT_MS / 1000} seconds`,
  too_large: `the file exceeds ${MAX_PDF_BYTES / (1024 * 1024)} MB`,
  too_many_redirects: "redirects too often",
  network: "could not be reached",
};

/** Fetches the caller's PDF through the outbound guard (the only way to reach customer URLs). */
async function fetchPdf(ctx: OrgContext, url: string): Promise<Buffer> {
  const field = "document_bloburl";
  try {
    const response = await guardedFetch(
      url,
      { allowHosts: ctx.services.config.outboundAllowHosts },
      {
        timeoutMs: FETCH_TIMEOUT_MS,
        maxBytes: MAX_PDF_BYTES,
        maxRedirects: 3,
        headers: { accept: "application/pdf" },
        purpose: "blob",
      },
    );
    if (response.status < 200 || response.status >= 300) {
      throw new AppError("invalid_request", `document_bloburl answered HTTP ${response.status}`, { field });
    }
    return response.body;
  } catch (error) {
    if (error instanceof OutboundError) {
      throw new AppError("invalid_request", `document_bloburl ${FETCH_FAILURES[error.reason] ?? error.message}`, {
        field,
        reason: error.reason,
      });
    }
    throw error;
  }
}

export async function findDocument(ctx: OrgContext, id: string, forUpdate = false): Promise<DocumentRow> {
  if (!isUuid(id)) throw notFound("document", { field: "document_id" });
  const query = ctx.scope.select(documents, eq(documents.id, id)).limit(1);
  const [row] = await (forUpdate ? query.for("update") : query);
  if (!row) throw notFound("document", { field: "document_id" });
  return row;
}

export async function findVersion(ctx: OrgContext, documentId: string, version: number): Promise<VersionRow> {
  const [row] = await ctx.scope
    .select(documentVersions, and(eq(documentVersions.documentId, documentId), eq(documentVersions.version, version)))
    .limit(1);
  if (!row) throw new Error(`document ${documentId} has no version ${version}`);
  return row;
}

export function toSummary(doc: DocumentRow, version: VersionRow): DocumentSummary {
  return {
    id: doc.id,
    name: doc.name,
    accountName: doc.accountName,
    availability: doc.availability,
    currentVersion: doc.currentVersion,
    title: version.title,
    description: version.description,
    fields: version.fields,
    pageCount: version.pageCount,
    pageSizes: version.pageSizes,
    sha256: version.sha256,
    language: version.language,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

/**
 * A6: fetches the PDF, checks it, validates the field rectangles against its pages, stores our
 * own copy with its SHA-256 and creates version 1. New documents are `active`.
 */
export async function createDocument(ctx: OrgContext, input: CreateDocumentInput) {
  const bytes = await fetchPdf(ctx, input.document_bloburl);
  const doc = await registerDocument(ctx, {
    name: input.document_name,
    description: input.document_description ?? null,
    accountName: input.account_name ?? null,
    fields: input.signingfield_koordinates,
    language: input.language ?? null,
    sourceUrl: input.document_bloburl,
    availability: "active",
    bytes,
    field: "document_bloburl",
  });
  return { document_name: doc.name, document_id: doc.id, document_bloburl: doc.sourceUrl };
}

export interface NewDocument {
  name: string;
  description: string | null;
  accountName: string | null;
  fields: SigningFieldRect[];
  /** The language the PDF is written in (issue 19); null: not named. */
  language: DocumentLanguage | null;
  /** What A6 echoes as `document_bloburl`; a function of the new id for a browser upload. */
  sourceUrl: string | ((id: string) => string);
  availability: DocumentAvailability;
  bytes: Buffer;
  /** The input field a PDF problem is reported on. */
  field: string;
}

/**
 * The one way a PDF becomes a document, whether A6 fetched it or staff uploaded it: the PDF
 * checks (in the worker), the fields against its pages, our own stored copy and version 1.
 */
export async function registerDocument(ctx: OrgContext, input: NewDocument): Promise<DocumentRow> {
  const info = await inspectPdf(ctx, input.bytes, input.field);
  checkFieldsFit(input.fields, info, "signingfield_koordinates");
  const stored = await ctx.services.storage.put("documents", input.bytes);
  const id = randomUUID();
  try {
    return await inTransaction(ctx, async (tx) => {
      const [doc] = await tx.scope
        .insert(documents, {
          id,
          name: input.name,
          accountName: input.accountName,
          sourceUrl: typeof input.sourceUrl === "function" ? input.sourceUrl(id) : input.sourceUrl,
          availability: input.availability,
        })
        .returning();
      await tx.scope.insert(documentVersions, {
        documentId: id,
        version: 1,
        title: input.name,
        description: input.description,
        fields: input.fields,
        language: input.language,
        storageKey: stored.key,
        sha256: stored.sha256,
        size: stored.size,
        pageCount: info.pageCount,
        pageSizes: info.pageSizes,
      });
      await recordAudit(tx, {
        action: "document.created",
        metadata: {
          documentId: id,
          name: input.name,
          version: 1,
          sha256: stored.sha256,
          pageCount: info.pageCount,
          ...(input.language && { language: input.language }),
        },
      });
      await queuePageImages(tx, stored.key);
      return doc!;
    });
  } catch (error) {
    await ctx.services.storage.delete(stored.key).catch(() => {});
    throw error;
  }
}

/**
 * A8: a new version with the changed title, description or fields (same PDF). Requests that
 * have not been opened follow it; opened and completed ones keep the version they pinned.
 */
export async function updateDocument(ctx: OrgContext, input: UpdateDocumentInput) {
  if (input.document_id !== undefined && input.document_id !== input.id) {
    throw new AppError("invalid_request", "document_id must equal the id in the path", { field: "document_id" });
  }
  if (
    input.title === undefined &&
    input.description === undefined &&
    input.fields === undefined &&
    input.language === undefined
  ) {
    throw new AppError("invalid_request", "send at least one of title, description, fields, language", {
      field: "body",
    });
  }
  return inTransaction(ctx, async (tx) => {
    const doc = await findDocument(tx, input.id, true);
    const current = await findVersion(tx, doc.id, doc.currentVersion);
    const fields = input.fields ?? current.fields;
    if (input.fields) checkFieldsFit(fields, { pageCount: current.pageCount, pageSizes: current.pageSizes }, "fields");
    const next = doc.currentVersion + 1;
    const { id: _id, createdAt: _createdAt, ...copy } = current;
    await tx.scope.insert(documentVersions, {
      ...copy,
      version: next,
      title: input.title ?? current.title,
      description: input.description === undefined ? current.description : input.description,
      fields,
      language: input.language === undefined ? current.language : input.language,
    });
    await tx.scope.update(documents, { currentVersion: next, updatedAt: new Date() }, eq(documents.id, doc.id));
    const changed = (["title", "description", "fields", "language"] as const).filter((k) => input[k] !== undefined);
    await recordAudit(tx, { action: "document.updated", metadata: { documentId: doc.id, version: next, changed } });
    return { id: doc.id, modified: true };
  });
}

/** A9: only a document without any signature request can be deleted; otherwise `deleted: false`. */
export async function deleteDocument(ctx: OrgContext, input: { id: string }): Promise<DeleteDocumentOutput> {
  const keys = await inTransaction(ctx, async (tx) => {
    const doc = await findDocument(tx, input.id, true);
    // Attached: A1's document, the pinned one, or one a request offers in another language (issue 19).
    const [attached] = await tx.scope
      .select(
        signatureRequests,
        or(
          eq(signatureRequests.documentId, doc.id),
          eq(signatureRequests.pinnedDocumentId, doc.id),
          sql`jsonb_path_exists(${signatureRequests.documentsByLanguage}, '$.* ? (@ == $id)', jsonb_build_object('id', ${doc.id}::text))`,
        ),
      )
      .limit(1);
    if (attached) return null;
    const versions = await tx.scope.select(documentVersions, eq(documentVersions.documentId, doc.id));
    await tx.scope.delete(documents, eq(documents.id, doc.id));
    await recordAudit(tx, {
      action: "document.deleted",
      metadata: { documentId: doc.id, name: doc.name, versions: versions.length },
    });
    return [...new Set(versions.map((v) => v.storageKey))];
  });
  if (!keys) {
    return {
      deleted: false,
      reason: "the document has signature requests (assignments); set its availability to inactive instead",
    };
  }
  // After commit: a failed file removal leaves an orphan file, never a document without its file.
  await Promise.all(
    keys.map(async (key) => {
      await deletePageImages(ctx, key);
      await ctx.services.storage.delete(key).catch(() => {});
    }),
  );
  return { deleted: true, reason: null };
}

/** A10: only `active` documents accept new signature requests. */
export async function setDocumentAvailability(
  ctx: OrgContext,
  input: { id: string; availability: DocumentAvailability },
) {
  return inTransaction(ctx, async (tx) => {
    const doc = await findDocument(tx, input.id, true);
    if (doc.availability !== input.availability) {
      await tx.scope.update(
        documents,
        { availability: input.availability, updatedAt: new Date() },
        eq(documents.id, doc.id),
      );
    }
    await recordAudit(tx, {
      action: "document.availability_changed",
      metadata: { documentId: doc.id, from: doc.availability, to: input.availability },
    });
    return { id: doc.id, availability: input.availability };
  });
}

export async function getDocument(ctx: OrgContext, input: { id: string }): Promise<DocumentSummary> {
  const doc = await findDocument(ctx, input.id);
  return toSummary(doc, await findVersion(ctx, doc.id, doc.currentVersion));
}

export async function listDocuments(ctx: OrgContext, input: { limit: number }): Promise<DocumentSummary[]> {
  const docs = await ctx.scope.select(documents).orderBy(desc(documents.createdAt)).limit(input.limit);
  return Promise.all(docs.map(async (doc) => toSummary(doc, await findVersion(ctx, doc.id, doc.currentVersion))));
}
