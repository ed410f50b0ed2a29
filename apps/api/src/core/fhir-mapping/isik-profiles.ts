import { CODE_SYSTEMS, HL7, ISIK, type FhirJson } from "./resources";

/**
 * The mandatory rules of the ISiK profiles the push Bundle claims, transcribed from their FSH
 * sources (read, not copied) so tests can hold every resource to them without a profile
 * validator: cardinalities (min ≥ 1, max 0 or 1), fixed systems and patterns, and the required
 * bindings as far as they can be checked without the value sets. Test support: nothing in the
 * service calls it.
 *
 * - ISiKDokumentenMetadaten: gematik/spec-ISiK-Dokumentenaustausch, branch rc/main-stufe-4
 *   (4.0.0-rc), Resources/input/fsh/ISiKDokumentenMetadaten.fsh.
 * - ISiKFormulardaten: gematik/spec-ISiK-Terminplanung, branch questionnaire-rc4,
 *   Resources/input/fsh/ISiKFormulardaten.fsh (the draft stage 4 form profile).
 */

type Json = Record<string, unknown>;
type Check = [path: string, problem: string | null];

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const object = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const present = (value: unknown) => value !== undefined && value !== null && value !== "";
const text = (value: unknown) => (typeof value === "string" && value.trim() ? value : undefined);

/** A profile claimed in `meta.profile` (a `|version` suffix allowed). */
const claims = (resource: Json, url: string) =>
  [object(resource.meta)?.profile].flat().some((p) => typeof p === "string" && p.split("|")[0] === url);

/** A CodeableConcept has a coding with a system and a code. */
const coded = (concept: unknown) => list(object(concept)?.coding).some((c) => text(c.system) && text(c.code));

const OID_URN = /^urn:oid:[0-2](\.(0|[1-9]\d*))+$/;
/** KDL leaf codes: two letters and six digits (AM050199); the value set holds only those. */
const KDL_CODE = /^[A-Z]{2}\d{6}$/;
const XDS_TYPE_SYSTEM = /^http:\/\/ihe-d\.de\/CodeSystems?\/IHEXDStypeCode$/;
const CONFIDENTIALITY_CODES = new Set(["N", "R", "V"]);

/** `* masterIdentifier 1..`, `system = "urn:ietf:rfc:3986"`, `value 1..1` (an OID with the prefix urn:oid:). */
function masterIdentifierChecks(doc: Json): Check[] {
  const id = object(doc.masterIdentifier);
  return [
    ["masterIdentifier", id ? null : "is required (1..)"],
    ["masterIdentifier.system", id && id.system !== CODE_SYSTEMS.uri ? `must be ${CODE_SYSTEMS.uri}` : null],
    ["masterIdentifier.value", id && !OID_URN.test(String(id.value)) ? "must be an OID as urn:oid:…" : null],
  ];
}

/** `* type 1..`, `type.coding contains KDL 1..1 and XDS 0..1`, KDL's system fixed, code and display 1..1. */
function typeChecks(doc: Json): Check[] {
  const codings = list(object(doc.type)?.coding);
  const kdl = codings.filter((c) => c.system === CODE_SYSTEMS.kdl);
  const xds = codings.filter((c) => XDS_TYPE_SYSTEM.test(String(c.system)));
  return [
    [
      "type.coding:KDL",
      kdl.length === 1 ? null : `needs exactly one KDL coding (${CODE_SYSTEMS.kdl}), has ${kdl.length}`,
    ],
    ["type.coding:KDL.code", kdl.some((c) => !KDL_CODE.test(String(c.code))) ? "must be a KDL code (AA000000)" : null],
    ["type.coding:KDL.display", kdl.some((c) => !text(c.display)) ? "is required (1..1)" : null],
    ["type.coding:XDS", xds.length > 1 ? "at most one XDS type coding (0..1)" : null],
  ];
}

/** `* category 0..1`, `category.coding contains XDS 1..1`, from IHEXDSclassCode, system, code and display 1..1. */
function categoryChecks(doc: Json): Check[] {
  const categories = list(doc.category);
  const xds = categories.flatMap((c) => list(c.coding)).filter((c) => c.system === CODE_SYSTEMS.iheClass);
  return [
    ["category", categories.length > 1 ? "at most one (0..1)" : null],
    ["category.coding:XDS", categories.length && xds.length !== 1 ? "needs exactly one IHE-D classCode coding" : null],
    [
      "category.coding:XDS.display",
      xds.some((c) => !text(c.code) || !text(c.display)) ? "code and display 1..1" : null,
    ],
  ];
}

/** `* subject only Reference(Patient)`, `subject 1..1`, `reference 1..1`. */
function subjectChecks(resource: Json, referenceRequired: boolean): Check[] {
  const subject = object(resource.subject);
  const reference = text(subject?.reference);
  const patient = !reference || /^(Patient[/?]|urn:uuid:)/.test(reference);
  return [
    ["subject", subject ? null : "is required (1..1)"],
    ["subject.reference", subject && referenceRequired && !reference ? "is required (1..1)" : null],
    ["subject.reference", patient && (subject?.type ?? "Patient") === "Patient" ? null : "must refer to a Patient"],
  ];
}

/** `* content ..1`, attachment contentType, language, creation `1..`, `format 1..` (IHEXDSformatCodeDE). */
function contentChecks(doc: Json): Check[] {
  const content = list(doc.content);
  const attachment = object(content[0]?.attachment);
  const format = object(content[0]?.format);
  return [
    ["content", content.length === 1 ? null : `exactly one (R4 1.., ISiK ..1), has ${content.length}`],
    ["content.attachment.contentType", text(attachment?.contentType) ? null : "is required (1..)"],
    ["content.attachment.language", text(attachment?.language) ? null : "is required (1..)"],
    ["content.attachment.creation", text(attachment?.creation) ? null : "is required (1..)"],
    ["content.format", text(format?.system) && text(format?.code) ? null : "is required (1..), a coded format"],
  ];
}

/** `* context 1..`, `facilityType 1..`, `practiceSetting 1..` (required bindings), `encounter ..1`, `event.coding 1..1`. */
function contextChecks(doc: Json): Check[] {
  const context = object(doc.context);
  const events = list(context?.event);
  return [
    ["context", context ? null : "is required (1..)"],
    ["context.facilityType", context && !coded(context.facilityType) ? "is required (1..), coded" : null],
    ["context.practiceSetting", context && !coded(context.practiceSetting) ? "is required (1..), coded" : null],
    ["context.encounter", list(context?.encounter).length > 1 ? "at most one (..1)" : null],
    [
      "context.event.coding",
      events.some((e) => list(e.coding).length !== 1 || !coded(e)) ? "exactly one, coded" : null,
    ],
  ];
}

/** The rules of ISiKDokumentenMetadaten, one FSH line each. */
function documentReferenceChecks(doc: Json): Check[] {
  const labels = list(doc.securityLabel);
  const confidential = (label: Json) =>
    list(label.coding).some(
      (c) => c.system === CODE_SYSTEMS.confidentiality && CONFIDENTIALITY_CODES.has(String(c.code)),
    );
  return [
    ["meta.profile", claims(doc, ISIK.documentReference) ? null : `must name ${ISIK.documentReference}`],
    ...masterIdentifierChecks(doc),
    ["status", present(doc.status) ? null : "is required"],
    ["type", object(doc.type) ? null : "is required (1..)"],
    ...typeChecks(doc),
    ...categoryChecks(doc),
    ...subjectChecks(doc, true),
    ["custodian", present(doc.custodian) ? "is not allowed (..0)" : null],
    ["description", text(doc.description) ? null : "is required (1..1)"],
    ["securityLabel", labels.length ? null : "is required (1..)"],
    [
      "securityLabel",
      labels.every(confidential) ? null : "must be v3-Confidentiality N, R or V (ISiKConfidentialityCodes)",
    ],
    ...contentChecks(doc),
    ...contextChecks(doc),
  ];
}

/** `value[x] only boolean or decimal or integer or date or dateTime or time or string or Coding`. */
const ALLOWED_VALUES = ["Boolean", "Decimal", "Integer", "Date", "DateTime", "Time", "String", "Coding"].map(
  (t) => `value${t}`,
);

/** Every item at every depth: `item.text 1..1`, the allowed answer types, `valueCoding.display 1..1`. */
function itemChecks(items: unknown, at: string): Check[] {
  return list(items).flatMap((item, i): Check[] => {
    const path = `${at}[${i}]`;
    const answers = list(item.answer);
    return [
      [`${path}.text`, text(item.text) ? null : "is required (1..1)"],
      ...answers.flatMap((answer, j): Check[] => {
        const values = Object.keys(answer).filter((key) => key.startsWith("value"));
        const coding = object(answer.valueCoding);
        return [
          [
            `${path}.answer[${j}]`,
            values.every((v) => ALLOWED_VALUES.includes(v)) ? null : `${values.join()} is not allowed`,
          ],
          [`${path}.answer[${j}].valueCoding.display`, coding && !text(coding.display) ? "is required (1..1)" : null],
          ...itemChecks(answer.item, `${path}.answer[${j}].item`),
        ];
      }),
      ...itemChecks(item.item, `${path}.item`),
    ];
  });
}

/** The rules of ISiKFormulardaten, one FSH line each. */
function questionnaireResponseChecks(qr: Json): Check[] {
  const displays = list(object(qr._questionnaire)?.extension).filter((e) => e.url === HL7.display);
  return [
    ["meta.profile", claims(qr, ISIK.questionnaireResponse) ? null : `must name ${ISIK.questionnaireResponse}`],
    ["status", qr.status === "completed" ? null : "must be completed (fixed)"],
    ["questionnaire", text(qr.questionnaire) ? null : "is required (MS; stage 5 1..; its display is 1..1)"],
    [
      "questionnaire.extension:display",
      displays.length === 1 && text(displays[0]!.valueString) ? null : "exactly one (1..1)",
    ],
    ...subjectChecks(qr, false),
    ["authored", text(qr.authored) ? null : "is required (1..1)"],
    ...itemChecks(qr.item, "item"),
  ];
}

/**
 * What a resource lacks of the ISiK profile its type is pushed as, as "path: problem" lines; empty
 * when it meets every transcribed rule. Other types have no ISiK profile here (Observation,
 * Provenance, Patient) and answer none.
 */
export function isikProblems(resource: FhirJson): string[] {
  const checks =
    resource.resourceType === "DocumentReference"
      ? documentReferenceChecks(resource)
      : resource.resourceType === "QuestionnaireResponse"
        ? questionnaireResponseChecks(resource)
        : [];
  return checks.flatMap(([path, problem]) => (problem ? [`${path}: ${problem}`] : []));
}
