import {
  questionnaireLibrary,
  withComputedScores,
  type FormField,
  type Template,
  type TemplateSchema,
} from "@clinsign/contracts";
import { isikDocumentReference, type SealedDocumentInput } from "./isik-document";
import type { PatientLink } from "./push-bundle";
import { questionnaireUrl } from "./questionnaire-export";
import { CLINSIGN, systems, type FhirJson } from "./resources";

/**
 * Test support for the push Bundle's tests: a library questionnaire as a template, a submission's
 * QuestionnaireResponse shaped as `core/fhir/questionnaire-response.ts` writes one (this library
 * may not import that domain), and a sealed PDF's DocumentReference. Nothing in the service uses it.
 */

export const API = "https://api.example.org";
/** The X.667 example UUID: its OID under 2.25 is published beside it. */
export const REQUEST_ID = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
export const SUBMISSION_ID = "0b8f5c1e-3c2a-4e8b-9a51-6f1f2d4c7e90";
export const AUTHORED = "2026-12-02T09:15:00.000Z";
export const SEALED_AT = "2026-12-02T09:16:30.000Z";
/** The hospital's case number system, as the organization maps `rnummer` to it. */
export const HIS_PATIENT: PatientLink = { system: "https://his.example.org/fhir/sid/fallnummer", value: "4711-0815" };

export type LibraryId = "phq-9-en" | "phq-9-de" | "gad-7-en" | "gad-7-de";

export function libraryTemplate(id: LibraryId): Template {
  const entry = questionnaireLibrary.find((q) => q.id === id)!;
  return {
    id: "00000000-0000-4000-8000-000000000034",
    identifier: `${id}-1a2b3c4d`,
    title: entry.title,
    description: entry.description,
    status: "active",
    schema: entry.schema,
    defaultLanguage: entry.language,
    translations: {},
    createdAt: "2026-11-30T00:00:00.000Z",
    updatedAt: "2026-11-30T00:00:00.000Z",
  };
}

/** The answers "0"…"3" of a library questionnaire's items, in order (`prefix_1`, `prefix_2`, …). */
export function answersOf(prefix: "phq9" | "gad7", weights: number[]): Record<string, string> {
  return Object.fromEntries(weights.map((weight, i) => [`${prefix}_${i + 1}`, String(weight)]));
}

function optionLabel(field: FormField, code: unknown): string | undefined {
  if (!("options" in field)) return undefined;
  const option = field.options.find((o) => typeof o !== "string" && o.value === code);
  return option && typeof option !== "string" && option.label !== option.value ? option.label : undefined;
}

/** One stored value as core/fhir answers it (choices as codings, scores as decimals with their band). */
function answerOf(field: FormField, value: unknown): FhirJson[] {
  if (field.type === "score") {
    const { score, band } = value as { score: number; band: string | null };
    return [{ valueDecimal: score, ...(band && { extension: [{ url: CLINSIGN.scoreBand, valueString: band }] }) }];
  }
  if ("options" in field) {
    const display = optionLabel(field, value);
    return [{ valueCoding: { code: String(value), ...(display && { display }) } }];
  }
  if (field.type === "file") {
    const [file] = value as { name: string; size: number; type: string }[];
    return [{ valueAttachment: { contentType: file!.type, size: file!.size, title: file!.name } }];
  }
  return [{ valueString: String(value) }];
}

/** A submission as core/fhir's QuestionnaireResponse: values stored with the server's scores. */
export function submittedResponse(template: Template, answers: Record<string, unknown>): FhirJson {
  const schema: TemplateSchema = template.schema;
  const stored = withComputedScores(schema, answers);
  const item = schema.fields.flatMap((field) =>
    field.key !== undefined && field.key in stored
      ? [{ linkId: field.key, text: field.label, answer: answerOf(field, stored[field.key]) }]
      : [],
  );
  return {
    resourceType: "QuestionnaireResponse",
    id: SUBMISSION_ID,
    meta: { lastUpdated: AUTHORED },
    identifier: { system: systems(API).submission, value: SUBMISSION_ID },
    questionnaire: `${questionnaireUrl(API, template.identifier)}|${schema.version}`,
    status: "completed",
    language: template.defaultLanguage,
    subject: { identifier: { system: systems(API).rnummer, value: HIS_PATIENT.value } },
    authored: AUTHORED,
    item,
  };
}

/** A sealed consent's DocumentReference with everything the console may set left at its default. */
export function sealedConsent(extra: Partial<SealedDocumentInput> = {}): FhirJson {
  return isikDocumentReference({
    apiUrl: API,
    requestId: REQUEST_ID,
    patient: HIS_PATIENT,
    description: "Einwilligung in die Datenverarbeitung vom 02.12.2026",
    title: "Einwilligung Datenverarbeitung",
    language: "de",
    pdf: {
      url: `${API}/v1/signature-requests/${REQUEST_ID}/signed.pdf`,
      size: 48213,
      sha1Base64: "2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
      sha256Hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    sealedAt: SEALED_AT,
    confidentiality: "N",
    author: "Klinikum Beispielstadt",
    ...extra,
  });
}
