import { evaluateForm, isCodable, type TemplateSchema } from "@clinsign/contracts";
import { fullUrlOf, transaction, uuidV5 } from "./push-bundle";
import { extensionOf, type QuestionnaireItem } from "./questionnaire-items";
import { CLINSIGN, CODE_SYSTEMS, HL7, type Coding, type FhirJson } from "./resources";

/**
 * Observations per SDC observation-based extraction: each item that carries a `code` and the
 * `observationExtract` marker becomes an Observation of its answer. Two doors, one shape:
 * `codedObservations` from a template and a submission's values (the push after a submission, the
 * score as the server computes it), `extractObservations` from a Questionnaire and a
 * QuestionnaireResponse (the operation `QuestionnaireResponse/$extract`). docs/fhir.md.
 */

/** The response the answers belong to: its identifier, subject, encounter and authored are copied. */
export interface ExtractionContext {
  response: FhirJson;
}

/** One answer to become an Observation: what it measures, its value, and a score's band. */
interface Measured {
  linkId: string;
  /** The answer's place among the item's answers (an item may repeat). */
  index: number;
  code: Coding[];
  text: string | undefined;
  value: FhirJson;
  band?: string;
}

/**
 * Severity words of score bands with a code in FHIR's own severity value set (R4
 * `condition-severity`, SNOMED CT): "where it maps". Other bands ("Minimal", "Moderately severe")
 * keep their label as text only; a made-up code would be worse than none.
 */
const SEVERITY: Record<string, Coding> = {
  mild: { system: CODE_SYSTEMS.snomed, code: "255604002", display: "Mild" },
  moderate: { system: CODE_SYSTEMS.snomed, code: "6736007", display: "Moderate" },
  severe: { system: CODE_SYSTEMS.snomed, code: "24484000", display: "Severe" },
};
const SEVERITY_WORDS: Record<string, keyof typeof SEVERITY> = {
  mild: "mild",
  leicht: "mild",
  gering: "mild",
  moderate: "moderate",
  mittelgradig: "moderate",
  severe: "severe",
  schwer: "severe",
};

/** The band as an interpretation: its label, and a severity code where the label names one. */
export function interpretationOf(band: string): FhirJson {
  const severity = SEVERITY_WORDS[band.trim().toLowerCase()];
  return { ...(severity && { coding: [SEVERITY[severity]] }), text: band };
}

/** A number as an Observation value: valueInteger when whole (R4 Observation has no valueDecimal). */
const numberValue = (n: number): FhirJson =>
  Number.isInteger(n) ? { valueInteger: n } : { valueQuantity: { value: n } };

/** An answer's value as an Observation value (SDC: decimal → Quantity), or null for types without one. */
function observationValue(answer: FhirJson): FhirJson | null {
  if (typeof answer.valueDecimal === "number") return numberValue(answer.valueDecimal);
  if (typeof answer.valueInteger === "number") return { valueInteger: answer.valueInteger };
  if (answer.valueCoding) return { valueCodeableConcept: { coding: [answer.valueCoding] } };
  if (answer.valueDate !== undefined) return { valueDateTime: answer.valueDate };
  for (const key of ["valueString", "valueBoolean", "valueDateTime", "valueTime", "valueQuantity"])
    if (answer[key] !== undefined) return { [key]: answer[key] };
  return null;
}

/** How the Observation points back at its response: the server's id where it has one, else its fullUrl. */
const responseReference = (response: FhirJson) =>
  typeof response.id === "string" ? `QuestionnaireResponse/${response.id}` : fullUrlOf(response);

/** The response's identity, from which each Observation's own is derived. */
function responseIdentity(response: FhirJson): string {
  const identifier = response.identifier as { system?: string; value?: string } | undefined;
  if (!identifier?.system || !identifier.value)
    throw new Error("a QuestionnaireResponse needs an identifier to extract Observations from it");
  return `${identifier.system}|${identifier.value}`;
}

/** One Observation (SDC's element list: status, category, code, subject, effective, issued, value, derivedFrom). */
function observationOf(measured: Measured, response: FhirJson): FhirJson {
  const place = `${responseIdentity(response)}#${measured.linkId}${measured.index ? `/${measured.index}` : ""}`;
  const copied = (key: string) => (response[key] !== undefined ? { [key]: response[key] } : {});
  return {
    resourceType: "Observation",
    identifier: [{ system: CODE_SYSTEMS.uri, value: `urn:uuid:${uuidV5(`Observation/${place}`)}` }],
    ...copied("basedOn"),
    status: "final",
    category: [{ coding: [{ system: CODE_SYSTEMS.observationCategory, code: "survey", display: "Survey" }] }],
    code: { coding: measured.code, ...(measured.text && { text: measured.text }) },
    ...copied("subject"),
    ...copied("encounter"),
    effectiveDateTime: response.authored,
    issued: response.authored,
    ...(response.author !== undefined && { performer: [response.author] }),
    ...measured.value,
    ...(measured.band && { interpretation: [interpretationOf(measured.band)] }),
    derivedFrom: [{ reference: responseReference(response), type: "QuestionnaireResponse" }],
  };
}

/**
 * The Observations of a submission's coded fields, in form order: a coded score with its value
 * and band as the server computes them (`evaluateForm`: whatever `values` holds under a score's
 * key is ignored; a score not computed, a source unanswered or hidden, gives none), any other
 * coded answer as the response carries it (the value `$extract` takes from it).
 */
export function codedObservations(
  template: { schema: TemplateSchema },
  values: Record<string, unknown>,
  ctx: ExtractionContext,
): FhirJson[] {
  const { scores } = evaluateForm(template.schema, values);
  const answers = answersByLinkId(ctx.response.item as ResponseItem[] | undefined);
  return template.schema.fields.flatMap((field) => {
    if (!isCodable(field) || !field.code) return [];
    if (field.type !== "score")
      // An answer's linkId is its field's key.
      return observationsOfAnswers(field.key, [field.code], field.label, answers.get(field.key) ?? [], ctx.response);
    const score = scores.get(field.key)?.value;
    if (!score) return [];
    const measured: Measured = {
      linkId: field.key,
      index: 0,
      code: [field.code],
      text: field.label,
      value: numberValue(score.score),
      ...(score.band !== null && { band: score.band }),
    };
    return [observationOf(measured, ctx.response)];
  });
}

type ResponseItem = FhirJson & {
  linkId: string;
  answer?: (FhirJson & { item?: ResponseItem[] })[];
  item?: ResponseItem[];
};

/** Every answered item of a response by linkId, nested ones included (under items and under answers). */
function answersByLinkId(items: ResponseItem[] | undefined, into = new Map<string, FhirJson[]>()) {
  for (const item of items ?? []) {
    for (const answer of item.answer ?? []) {
      into.set(item.linkId, [...(into.get(item.linkId) ?? []), answer]);
      answersByLinkId(answer.item, into);
    }
    answersByLinkId(item.item, into);
  }
  return into;
}

/** The Questionnaire's items marked for extraction (observationExtract true, with a code), nested ones included. */
function extractedItems(items: QuestionnaireItem[] | undefined): QuestionnaireItem[] {
  return (items ?? []).flatMap((item) => [
    ...(extensionOf(item, HL7.observationExtract)?.valueBoolean === true && Array.isArray(item.code) ? [item] : []),
    ...extractedItems(item.item),
  ]);
}

/**
 * `QuestionnaireResponse/$extract`, observation-based: a transaction Bundle of an Observation per
 * answer of each marked item (conditional creates: extracting twice creates nothing twice). A
 * score's band rides on its answer (`score-band` extension) and becomes the interpretation.
 */
export function extractObservations(questionnaire: FhirJson, questionnaireResponse: FhirJson): FhirJson {
  const answers = answersByLinkId(questionnaireResponse.item as ResponseItem[] | undefined);
  const observations = extractedItems(questionnaire.item as QuestionnaireItem[] | undefined).flatMap((item) =>
    observationsOfAnswers(
      item.linkId,
      item.code as Coding[],
      item.text,
      answers.get(item.linkId) ?? [],
      questionnaireResponse,
    ),
  );
  return transaction(observations);
}

/** An Observation per answer of one item that has a value (a score's band as its interpretation). */
function observationsOfAnswers(
  linkId: string,
  code: Coding[],
  text: string | undefined,
  answers: FhirJson[],
  response: FhirJson,
): FhirJson[] {
  return answers.flatMap((answer, index) => {
    const value = observationValue(answer);
    if (!value) return [];
    const band = extensionOf(answer, CLINSIGN.scoreBand)?.valueString;
    const measured: Measured = { linkId, index, code, text, value };
    return [observationOf(band === undefined ? measured : { ...measured, band }, response)];
  });
}
