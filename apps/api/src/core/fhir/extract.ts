import { AppError, notFound } from "../errors";
import type { OrgContext } from "../context";
import { questionnaireUrl, templateToQuestionnaire } from "../fhir-mapping/questionnaire-export";
import type { FhirJson } from "../fhir-mapping/resources";
import { extractObservations } from "../fhir-mapping/score-observations";
import { findSubmission } from "../submissions/submission-reads";
import { getTemplate } from "../templates/templates";
import { unprocessable } from "./fhir";
import { submissionToQuestionnaireResponse } from "./questionnaire-response";

/**
 * SDC `QuestionnaireResponse/$extract` (observation-based extraction, SDC STU4): the Observations
 * the coded score items of a response make, as the transaction Bundle a client can post to its
 * own server. Of a stored response (a submission, with the form as it was answered) or of one the
 * caller sends (answered to one of this organization's Questionnaires, in its current version).
 */
export async function extractFromResponse(
  ctx: OrgContext,
  input: { id?: string; resource?: Record<string, unknown> },
): Promise<FhirJson> {
  if (input.id !== undefined) return extractFromStored(ctx, input.id);
  const response = responseOf(input.resource!);
  const canonical = typeof response.questionnaire === "string" ? response.questionnaire : "";
  const [url, version] = canonical.split("|");
  const base = questionnaireUrl(ctx.services.config.publicApiUrl, "");
  if (!url?.startsWith(base))
    throw unprocessable("questionnaire: not a Questionnaire of this service", [
      {
        severity: "error",
        code: "not-found",
        diagnostics: "questionnaire must name one of this service's Questionnaires",
        expression: ["QuestionnaireResponse.questionnaire"],
      },
    ]);
  const template = await getTemplate(ctx, { identifier: url.slice(base.length), activeOnly: false }).catch(() => {
    throw notFound("Questionnaire", { field: "questionnaire" });
  });
  if (version !== undefined && version !== String(template.schema.version))
    throw unprocessable(
      `questionnaire: answered to version ${version}; the Questionnaire is at ${template.schema.version}`,
      [
        {
          severity: "error",
          code: "conflict",
          diagnostics: "the response was given to another version of the Questionnaire",
          expression: ["QuestionnaireResponse.questionnaire"],
        },
      ],
    );
  const { questionnaire } = templateToQuestionnaire(template, ctx.services.config.publicApiUrl);
  return extractObservations(questionnaire, response);
}

async function extractFromStored(ctx: OrgContext, id: string): Promise<FhirJson> {
  const row = await findSubmission(ctx, id).catch((error: unknown) => {
    throw error instanceof AppError && error.code === "not_found"
      ? notFound("QuestionnaireResponse", { field: "id" })
      : error;
  });
  const template = await getTemplate(ctx, { identifier: row.templateIdentifier, activeOnly: false });
  // The form as the patient answered it: the schema stored with the submission.
  const answered = { ...template, title: row.templateTitle, schema: row.templateSchema as typeof template.schema };
  const { questionnaire } = templateToQuestionnaire(answered, ctx.services.config.publicApiUrl);
  return extractObservations(questionnaire, await submissionToQuestionnaireResponse(ctx, row));
}

/** The response itself, or the `questionnaire-response` parameter of a Parameters resource. */
function responseOf(resource: Record<string, unknown>): FhirJson {
  if (resource.resourceType === "QuestionnaireResponse") return resource;
  if (resource.resourceType === "Parameters" && Array.isArray(resource.parameter)) {
    const named = (resource.parameter as { name?: unknown; resource?: FhirJson }[]).find(
      (p) => p.name === "questionnaire-response" && p.resource?.resourceType === "QuestionnaireResponse",
    );
    if (named?.resource) return named.resource;
  }
  throw unprocessable("send a QuestionnaireResponse, or Parameters with questionnaire-response", [
    {
      severity: "error",
      code: "structure",
      diagnostics: "expected a QuestionnaireResponse or Parameters naming questionnaire-response",
    },
  ]);
}
