import { patientReference, type PatientLink } from "./push-bundle";
import { CLINSIGN, HL7, ISIK, type Coding, type FhirJson } from "./resources";

/**
 * A submission's QuestionnaireResponse (as `core/fhir/questionnaire-response.ts` writes it) shaped
 * as ISiKFormulardaten for the push Bundle: the profile, the form's title beside `questionnaire`,
 * the hospital's patient as subject, a text on every item, and only the answer types the profile
 * allows (docs/fhir.md).
 */

export interface FormResponseInput {
  /** The patient the service vouches for (never one the patient's browser named: see below). */
  patient: PatientLink;
  /** The form's title (Questionnaire.title): ISiKFormulardaten names it beside `questionnaire`. */
  questionnaireTitle: string;
  /** Where the form was signed: `documentReferenceLink` of the request whose PDF holds it. */
  signedDocument?: FhirJson;
}

/**
 * Answer types ISiKFormulardaten allows (`value[x] only boolean or decimal or integer or date or
 * dateTime or time or string or Coding`). An attachment (a file, a drawn signature) is not among
 * them: it stays in ClinSign and in the sealed PDF.
 */
const ALLOWED_ANSWERS = [
  "valueBoolean",
  "valueDecimal",
  "valueInteger",
  "valueDate",
  "valueDateTime",
  "valueTime",
  "valueString",
  "valueCoding",
] as const;

type Answer = FhirJson & { valueCoding?: Coding; item?: Item[] };
type Item = FhirJson & { linkId: string; text?: string; answer?: Answer[]; item?: Item[] };

/** An answer as the profile takes it, or null when its type is not allowed. */
function answerOf(answer: Answer): Answer | null {
  if (!ALLOWED_ANSWERS.some((key) => key in answer)) return null;
  const { item, valueCoding, ...rest } = answer;
  const nested = itemsOf(item);
  return {
    ...rest,
    // ISiK: a Coding's display is mandatory. Ours lacks one only where the label is the code itself.
    ...(valueCoding && { valueCoding: { ...valueCoding, display: valueCoding.display ?? valueCoding.code } }),
    ...(nested.length && { item: nested }),
  };
}

/** Items with their texts and allowed answers; an item left with neither answer nor items goes. */
function itemsOf(items: Item[] | undefined): Item[] {
  return (items ?? []).flatMap(({ answer: given, item: children, ...rest }): Item[] => {
    const answer = (given ?? []).flatMap((a): Answer[] => {
      const shaped = answerOf(a);
      return shaped ? [shaped] : [];
    });
    const item = itemsOf(children);
    if (!answer.length && !item.length) return [];
    // ISiK: every item carries its question's text; an empty label leaves the linkId to show.
    return [
      { ...rest, text: rest.text || rest.linkId, ...(answer.length && { answer }), ...(item.length && { item }) },
    ];
  });
}

/**
 * The response as ISiKFormulardaten. Refuses a response whose patient number the patient's browser
 * gave (it has no subject, on purpose: `subjectOf` in core/fhir), and one not completed.
 */
export function isikQuestionnaireResponse(qr: FhirJson, input: FormResponseInput): FhirJson {
  const own = Array.isArray(qr.extension) ? (qr.extension as FhirJson[]) : [];
  if (own.some((e) => e.url === CLINSIGN.patientReportedIdentifier))
    throw new Error("a response whose patient the browser named is not pushed with a subject");
  if (qr.status !== "completed")
    throw new Error(`only completed responses are pushed (this one is ${String(qr.status)})`);
  const item = itemsOf(qr.item as Item[] | undefined);
  // The link to the sealed PDF where the form was signed: ISiK's answer types leave no valueReference.
  const signed = input.signedDocument ? [{ url: CLINSIGN.signedDocument, valueReference: input.signedDocument }] : [];
  const extension = [...own, ...signed];
  return {
    resourceType: "QuestionnaireResponse",
    meta: { profile: [ISIK.questionnaireResponse] },
    ...(extension.length && { extension }),
    identifier: qr.identifier,
    questionnaire: qr.questionnaire,
    _questionnaire: { extension: [{ url: HL7.display, valueString: input.questionnaireTitle }] },
    status: "completed",
    ...(qr.language !== undefined && { language: qr.language }),
    subject: patientReference(input.patient),
    authored: qr.authored,
    ...(item.length && { item }),
  };
}
