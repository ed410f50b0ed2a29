import type { TRPCRouterRecord } from "@trpc/server";
import {
  documentReferenceSearchInput,
  fhirExtractInput,
  fhirReadInput,
  questionnaireImportInput,
  questionnaireResponseSearchInput,
  questionnaireSearchInput,
} from "@clinsign/contracts";
import {
  importQuestionnaire,
  readDocumentReference,
  readQuestionnaire,
  readQuestionnaireResponse,
  searchDocumentReferences,
  searchQuestionnaireResponses,
  searchQuestionnaires,
} from "../../core/fhir/fhir";
import { extractFromResponse } from "../../core/fhir/extract";
import { orgProcedure } from "../trpc";

/** The FHIR R4 door's procedures (`rest/fhir.ts`): FHIR JSON out, the template import in. */
export const fhirRouter = {
  questionnaire: orgProcedure.input(fhirReadInput).query(({ ctx, input }) => readQuestionnaire(ctx.org, input)),
  questionnaires: orgProcedure
    .input(questionnaireSearchInput)
    .query(({ ctx, input }) => searchQuestionnaires(ctx.org, input)),
  importQuestionnaire: orgProcedure
    .input(questionnaireImportInput)
    .mutation(({ ctx, input }) => importQuestionnaire(ctx.org, input)),
  questionnaireResponse: orgProcedure
    .input(fhirReadInput)
    .query(({ ctx, input }) => readQuestionnaireResponse(ctx.org, input)),
  questionnaireResponses: orgProcedure
    .input(questionnaireResponseSearchInput)
    .query(({ ctx, input }) => searchQuestionnaireResponses(ctx.org, input)),
  documentReference: orgProcedure.input(fhirReadInput).query(({ ctx, input }) => readDocumentReference(ctx.org, input)),
  documentReferences: orgProcedure
    .input(documentReferenceSearchInput)
    .query(({ ctx, input }) => searchDocumentReferences(ctx.org, input)),
  /** SDC `QuestionnaireResponse/$extract`: the Observations of a response's coded scores, as a transaction. */
  extract: orgProcedure.input(fhirExtractInput).mutation(({ ctx, input }) => extractFromResponse(ctx.org, input)),
} satisfies TRPCRouterRecord;
