import type {
  DocumentReferenceSearchInput,
  QuestionnaireResponseSearchInput,
  QuestionnaireSearchInput,
} from "@clinsign/contracts";
import { and, eq, getTableColumns, isNotNull, signatureRequests, submissions, templates } from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { decodeCursor, page, parseTimeSeqKey, toPage } from "../lists/keyset";
import { rowKey, submissionRows } from "../submissions/submission-reads";
import { createTemplate, getTemplate, toTemplate } from "../templates/templates";
import { sealedPdfToDocumentReference } from "./document-reference";
import { questionnaireUrl, templateToQuestionnaire } from "../fhir-mapping/questionnaire-export";
import { questionnaireToTemplate } from "../fhir-mapping/questionnaire-import";
import { submissionToQuestionnaireResponse } from "./questionnaire-response";
import {
  operationOutcome,
  systems,
  type FhirJson,
  type OperationOutcome,
  type OutcomeIssue,
} from "../fhir-mapping/resources";
import { dateRange, searchBundle, tokenValue } from "./search";

const apiUrlOf = (ctx: OrgContext) => ctx.services.config.publicApiUrl;

/**
 * Refused FHIR input: 422 at the FHIR door with these issues as its OperationOutcome (other
 * doors see a 400 `invalid_request`).
 */
export const unprocessable = (message: string, issues: OutcomeIssue[]) =>
  new AppError("invalid_request", message, { fhirStatus: 422, fhirIssues: issues });

// ---------------------------------------------------------------- Questionnaire

export async function readQuestionnaire(ctx: OrgContext, input: { id: string }): Promise<FhirJson> {
  const template = await getTemplate(ctx, { identifier: input.id, activeOnly: false }).catch((error: unknown) => {
    throw error instanceof AppError && error.code === "not_found" ? notFound("Questionnaire", { field: "id" }) : error;
  });
  return templateToQuestionnaire(template, apiUrlOf(ctx)).questionnaire;
}

/** The identifier a Questionnaire url names (ours only; `|version` ignored). */
function identifierOfUrl(ctx: OrgContext, url: string, name: string): string {
  const base = `${questionnaireUrl(apiUrlOf(ctx), "")}`;
  const canonical = url.split("|")[0]!;
  if (canonical.startsWith(base)) return canonical.slice(base.length);
  if (/^[A-Za-z0-9.-]{1,64}$/.test(canonical)) return canonical;
  throw new AppError("invalid_request", `${name}: not a Questionnaire of this service`, { field: name });
}

export async function searchQuestionnaires(ctx: OrgContext, input: QuestionnaireSearchInput): Promise<FhirJson> {
  const identifier = input.url
    ? identifierOfUrl(ctx, input.url, "url")
    : input.identifier
      ? tokenValue(input.identifier, systems(apiUrlOf(ctx)).template, "identifier")
      : undefined;
  const status = input.status === "retired" ? "archived" : input.status;
  const query = ctx.scope
    .query(getTableColumns(templates))
    .from(templates)
    .where(
      identifier !== undefined ? eq(templates.identifier, identifier) : undefined,
      status ? eq(templates.status, status) : undefined,
    );
  const found = await page(
    query,
    [templates.updatedAt, templates.id],
    { cursor: input._page, limit: input._count, sort: "newest" },
    (row) => templateToQuestionnaire(toTemplate(row), apiUrlOf(ctx)),
  );
  return searchBundle(
    apiUrlOf(ctx),
    "Questionnaire",
    input,
    found.items.map((i) => i.questionnaire),
    found.nextCursor,
    found.items.flatMap((i) => i.issues),
  );
}

/**
 * POST /fhir/r4/Questionnaire: a new template from a Questionnaire. Refused (422) when anything
 * would change the form's meaning; otherwise created, with warnings for what was not kept.
 */
export async function importQuestionnaire(
  ctx: OrgContext,
  input: { resource: FhirJson },
): Promise<{ questionnaire: FhirJson; outcome: OperationOutcome; identifier: string }> {
  const { template, issues } = questionnaireToTemplate(input.resource);
  if (!template) {
    const errors = issues.filter((i) => i.severity === "error");
    throw unprocessable(
      `the Questionnaire cannot be imported: ${errors.map((e) => e.diagnostics).join("; ")}`.slice(0, 2000),
      issues,
    );
  }
  const created = await createTemplate(ctx, template);
  const { questionnaire } = templateToQuestionnaire(created, apiUrlOf(ctx));
  return {
    questionnaire,
    outcome: operationOutcome([
      {
        severity: "information",
        code: "informational",
        diagnostics: `created template ${created.identifier} with ${created.schema.fields.length} fields`,
      },
      ...issues,
    ]),
    identifier: created.identifier,
  };
}

// ---------------------------------------------------------------- QuestionnaireResponse

export async function readQuestionnaireResponse(ctx: OrgContext, input: { id: string }): Promise<FhirJson> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.id);
  const [row] = uuid ? await ctx.scope.select(submissions, eq(submissions.id, input.id.toLowerCase())).limit(1) : [];
  if (!row) throw notFound("QuestionnaireResponse", { field: "id" });
  return submissionToQuestionnaireResponse(ctx, row);
}

function patientParam(
  ctx: OrgContext,
  input: { "patient:identifier"?: string; "subject:identifier"?: string },
  system: string,
) {
  const [name, value] = input["patient:identifier"]
    ? ["patient:identifier", input["patient:identifier"]]
    : ["subject:identifier", input["subject:identifier"]];
  return value === undefined ? undefined : tokenValue(value, system, name);
}

export async function searchQuestionnaireResponses(
  ctx: OrgContext,
  input: QuestionnaireResponseSearchInput,
): Promise<FhirJson> {
  const rnummer = patientParam(ctx, input, systems(apiUrlOf(ctx)).rnummer);
  const templateIdentifier = input.questionnaire
    ? identifierOfUrl(ctx, input.questionnaire.replace(/^Questionnaire\//, ""), "questionnaire")
    : undefined;
  const { from, to } = dateRange(input.authored, "authored");
  const sort = input._sort === "authored" ? "oldest" : "newest";
  const after = input._page ? decodeCursor(input._page, parseTimeSeqKey) : undefined;
  const rows = await submissionRows(
    ctx,
    // A response found by its subject has that subject: an rnummer only the patient gave is not one.
    { rnummer, vouchedRnummer: rnummer !== undefined, templateIdentifier, createdFrom: from, createdTo: to },
    sort,
    after,
    input._count,
  );
  const found = toPage(rows, input._count, (row) => row, rowKey);
  const resources: FhirJson[] = [];
  for (const row of found.items) resources.push(await submissionToQuestionnaireResponse(ctx, row));
  return searchBundle(apiUrlOf(ctx), "QuestionnaireResponse", input, resources, found.nextCursor);
}

// ---------------------------------------------------------------- DocumentReference

const sealed = and(eq(signatureRequests.status, "completed"), isNotNull(signatureRequests.signedPdfKey));

export async function readDocumentReference(ctx: OrgContext, input: { id: string }): Promise<FhirJson> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.id);
  const [row] = uuid
    ? await ctx.scope.select(signatureRequests, eq(signatureRequests.id, input.id.toLowerCase()), sealed).limit(1)
    : [];
  if (!row) throw notFound("DocumentReference", { field: "id" });
  return sealedPdfToDocumentReference(ctx, row);
}

export async function searchDocumentReferences(
  ctx: OrgContext,
  input: DocumentReferenceSearchInput,
): Promise<FhirJson> {
  const patientId = patientParam(ctx, input, systems(apiUrlOf(ctx)).patientId);
  const query = ctx.scope
    .query(getTableColumns(signatureRequests))
    .from(signatureRequests)
    .where(sealed, patientId !== undefined ? eq(signatureRequests.patientId, patientId) : undefined);
  const found = await page(
    query,
    [signatureRequests.completedAt, signatureRequests.id],
    { cursor: input._page, limit: input._count, sort: "newest" },
    (row) => row,
  );
  const resources: FhirJson[] = [];
  for (const row of found.items) resources.push(await sealedPdfToDocumentReference(ctx, row));
  return searchBundle(apiUrlOf(ctx), "DocumentReference", input, resources, found.nextCursor);
}
