import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  createDocumentInput,
  documentIdInput,
  listDocumentsInput,
  setAvailabilityInput,
  setRecordClassInput,
  updateDocumentInput,
} from "@clinsign/contracts";
import {
  createDocument,
  deleteDocument,
  getDocument,
  listDocuments,
  setDocumentAvailability,
  updateDocument,
} from "../../core/documents/documents";
import { getDocumentDetail, listDocumentPage } from "../../core/documents/document-reads";
import { setDocumentRecordClass } from "../../core/documents/record-class";
import { orgProcedure, staffProcedure } from "../trpc";

export const documentsRouter = {
  create: orgProcedure.input(createDocumentInput).mutation(({ ctx, input }) => createDocument(ctx.org, input)),
  update: orgProcedure.input(updateDocumentInput).mutation(({ ctx, input }) => updateDocument(ctx.org, input)),
  delete: orgProcedure.input(documentIdInput).mutation(({ ctx, input }) => deleteDocument(ctx.org, input)),
  setAvailability: orgProcedure
    .input(setAvailabilityInput)
    .mutation(({ ctx, input }) => setDocumentAvailability(ctx.org, input)),
  get: orgProcedure.input(documentIdInput).query(({ ctx, input }) => getDocument(ctx.org, input)),
  list: orgProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).default(100) }))
    .query(({ ctx, input }) => listDocuments(ctx.org, input)),
  /** Staff: the list contract (search, availability); the upload and a version's PDF are /staff/documents routes (rest/console-routes.ts). */
  overview: staffProcedure.input(listDocumentsInput).query(({ ctx, input }) => listDocumentPage(ctx.org, input)),
  /** Staff: the KDL type and confidentiality the FHIR push files its sealed PDFs under (issue 34). */
  setRecordClass: staffProcedure
    .input(setRecordClassInput)
    .mutation(({ ctx, input }) => setDocumentRecordClass(ctx.org, input)),
  /** Staff: one document with its versions and which requests follow the next version. */
  detail: staffProcedure.input(documentIdInput).query(({ ctx, input }) => getDocumentDetail(ctx.org, input)),
} satisfies TRPCRouterRecord;
