import { z } from "zod";
import { isoDateTime } from "./common";
import { patientLanguage } from "./languages";
import { listInput, listPage } from "./lists";
import { documentRecordClass } from "./record-class";
import { createDocumentInput, documentAvailability, documentSummary, signingFieldRect } from "./signatures";

/**
 * Staff procedures of the Documents section: the list on the one list contract, a document's
 * detail with its versions and how its requests relate to them, and the browser upload (the
 * same checks as A6, the PDF sent as bytes instead of fetched from a URL).
 */

/** Requests of one document by status (`sealing` includes a sealing that gave up). */
export const documentRequestCounts = z.object({
  pending: z.number().int(),
  opened: z.number().int(),
  sealing: z.number().int(),
  completed: z.number().int(),
  declined: z.number().int(),
  expired: z.number().int(),
});
export type DocumentRequestCounts = z.infer<typeof documentRequestCounts>;

export const listDocumentsInput = listInput({
  /** Part of the name or the current title, case-insensitive. */
  search: z.string().trim().max(200, { message: "must be at most 200 characters" }).optional(),
  availability: documentAvailability.optional(),
});
export type ListDocumentsInput = z.input<typeof listDocumentsInput>;

export const documentListItem = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string(),
  availability: documentAvailability,
  currentVersion: z.number().int(),
  pageCount: z.number().int(),
  fieldCount: z.number().int(),
  /** The current version's language (issue 19); null: not named. */
  language: patientLanguage.nullable(),
  requestCounts: documentRequestCounts,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type DocumentListItem = z.infer<typeof documentListItem>;
export const documentListPage = listPage(documentListItem);

export const documentVersionItem = z.object({
  version: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  fields: z.array(signingFieldRect),
  /** The version's language (issue 19); null: not named. */
  language: patientLanguage.nullable(),
  createdAt: isoDateTime,
  /** Requests opened on this version: they keep it whatever is saved later. */
  pinnedRequests: z.number().int(),
});
export type DocumentVersionItem = z.infer<typeof documentVersionItem>;

export const documentDetail = documentSummary.extend({
  versions: z.array(documentVersionItem),
  requestCounts: documentRequestCounts,
  /** Pending requests nobody has opened yet: they follow the next saved version. */
  followingRequests: z.number().int(),
  /** Requests that could still be signed but keep the version they were opened on. */
  pinnedOpenRequests: z.number().int(),
  /** How the hospital files it: KDL type and confidentiality (issue 34, the FHIR push). */
  recordClass: documentRecordClass,
});
export type DocumentDetail = z.infer<typeof documentDetail>;

/** POST /staff/documents: the multipart part `metadata` (JSON, sent before the `file` part). */
export const uploadDocumentMetadata = createDocumentInput.omit({ document_bloburl: true, account_name: true });
export type UploadDocumentMetadata = z.input<typeof uploadDocumentMetadata>;

export const uploadDocumentOutput = z.object({ id: z.string(), name: z.string(), version: z.number().int() });
export type UploadDocumentOutput = z.infer<typeof uploadDocumentOutput>;
