/**
 * The few FHIR R4 shapes this service writes and reads, typed as far as the mapping needs them.
 * Resources leave the service as plain JSON; tests validate each against the R4 structure
 * definitions (`@medplum/core` validateResource).
 */

export type FhirJson = Record<string, unknown>;

export interface Extension {
  url: string;
  valueString?: string;
  valueCode?: string;
  valueInteger?: number;
  valueDecimal?: number;
  valueDate?: string;
  valueBoolean?: boolean;
  valueReference?: { reference: string };
  valueCodeableConcept?: { coding: Coding[]; text?: string };
  [value: string]: unknown;
}

export interface Coding {
  system?: string;
  code?: string;
  display?: string;
  /** The display's translations (`translationElement`). */
  _display?: FhirJson;
}

export type IssueSeverity = "fatal" | "error" | "warning" | "information";
/** Codes of http://hl7.org/fhir/issue-type used here. */
export type IssueType =
  | "invalid"
  | "structure"
  | "required"
  | "value"
  | "not-supported"
  | "not-found"
  | "security"
  | "login"
  | "forbidden"
  | "conflict"
  | "too-costly"
  | "throttled"
  | "transient"
  | "exception"
  | "informational";

export interface OutcomeIssue {
  severity: IssueSeverity;
  code: IssueType;
  diagnostics: string;
  /** FHIRPath of the element concerned, e.g. `Questionnaire.item[2].enableWhen`. */
  expression?: string[];
}

export interface OperationOutcome {
  resourceType: "OperationOutcome";
  id?: string;
  issue: OutcomeIssue[];
}

export function operationOutcome(issue: OutcomeIssue[], id?: string): OperationOutcome {
  return {
    resourceType: "OperationOutcome",
    ...(id && { id }),
    issue: issue.length ? issue : [{ severity: "information", code: "informational", diagnostics: "ok" }],
  };
}

/** Extensions defined by HL7 (core and SDC) that the mapping reads and writes. */
export const HL7 = {
  itemControl: "http://hl7.org/fhir/StructureDefinition/questionnaire-itemControl",
  itemControlSystem: "http://hl7.org/fhir/questionnaire-item-control",
  minLength: "http://hl7.org/fhir/StructureDefinition/minLength",
  regex: "http://hl7.org/fhir/StructureDefinition/regex",
  entryFormat: "http://hl7.org/fhir/StructureDefinition/entryFormat",
  minValue: "http://hl7.org/fhir/StructureDefinition/minValue",
  maxValue: "http://hl7.org/fhir/StructureDefinition/maxValue",
  maxSize: "http://hl7.org/fhir/StructureDefinition/maxSize",
  mimeType: "http://hl7.org/fhir/StructureDefinition/mimeType",
  /** An option's score weight (`answerOptionOf`); FHIRPath's `weight()` reads it. */
  itemWeight: "http://hl7.org/fhir/StructureDefinition/itemWeight",
  ordinalValue: "http://hl7.org/fhir/StructureDefinition/ordinalValue",
  calculatedExpression: "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-calculatedExpression",
  /** A text element in another language (`_text`, `_title`, `_display`): sub-extensions `lang` and `content`. */
  translation: "http://hl7.org/fhir/StructureDefinition/translation",
  /** SDC observation-based extraction: this item (with its `code`) becomes an Observation. */
  observationExtract: "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-observationExtract",
  /** SDC template-based extraction: on an item, the contained resource its answer fills (sub-extension `template`). */
  templateExtract: "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-templateExtract",
  /** In a template: a FHIRPath (on the response item) whose result becomes the element carrying it. */
  templateExtractValue: "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-templateExtractValue",
  /** In a template: a FHIRPath whose results repeat the element carrying it; none removes it. */
  templateExtractContext: "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-templateExtractContext",
  /** The title of what a canonical names (ISiKFormulardaten: the form's title on `questionnaire`). */
  display: "http://hl7.org/fhir/StructureDefinition/display",
} as const;

/**
 * The `_<element>` of a string element carrying its texts in other languages (the standard
 * translation extension), or undefined when there are none.
 */
export function translationElement(texts: Array<[language: string, text: string | undefined]>): FhirJson | undefined {
  const extension = texts.flatMap(([language, text]) =>
    text && text.trim()
      ? [
          {
            url: HL7.translation,
            extension: [
              { url: "lang", valueCode: language },
              { url: "content", valueString: text },
            ],
          },
        ]
      : [],
  );
  return extension.length ? { extension } : undefined;
}

/**
 * ClinSign's own extensions, for what FHIR has no element for (which of our field types an item
 * is, a field's id, a file field's `accept` as written). URNs: stable across installations, so
 * a Questionnaire exported by one imports into another.
 */
export const CLINSIGN = {
  fieldType: "urn:clinsign:fhir:extension:field-type",
  fieldId: "urn:clinsign:fhir:extension:field-id",
  accept: "urn:clinsign:fhir:extension:accept",
  helpText: "urn:clinsign:fhir:extension:help-text",
  /** A condition enableWhen cannot express, as the template's JSON (the importer reads it back). */
  visibleWhen: "urn:clinsign:fhir:extension:visible-when",
  /** Points at a contained OperationOutcome naming what the export could not map exactly. */
  exportIssues: "urn:clinsign:fhir:extension:export-issues",
  /** SHA-256 (hex) of an attachment's bytes, beside FHIR's SHA-1 `hash`. */
  sha256: "urn:clinsign:fhir:extension:sha256",
  /** A score field's source keys (JSON), beside its calculatedExpression, so import needs no FHIRPath parser. */
  scoreSources: "urn:clinsign:fhir:extension:score-sources",
  /** A score field's bands (JSON): FHIR has no element for "10-14 reads as moderate". */
  scoreBands: "urn:clinsign:fhir:extension:score-bands",
  /** The form's own settings FHIR has no element for (JSON): `scoresShownToPatient`, `flagged`. */
  formSettings: "urn:clinsign:fhir:extension:form-settings",
  /** On a score's answer in a QuestionnaireResponse: the label of the band its sum fell into. */
  scoreBand: "urn:clinsign:fhir:extension:score-band",
  /**
   * On a QuestionnaireResponse: an identifier (valueIdentifier, the rnummer's system) the patient's
   * browser gave and nobody verified; such a response has no `subject` (issue 32).
   */
  patientReportedIdentifier: "urn:clinsign:fhir:extension:patient-reported-identifier",
  /** On a QuestionnaireResponse pushed to a hospital: the DocumentReference of the PDF its form was signed in. */
  signedDocument: "urn:clinsign:fhir:extension:signed-document",
} as const;

/** Identifier systems: the service's own records, and the caller's patient and case numbers as given. */
export const systems = (apiUrl: string) => ({
  template: `${apiUrl}/fhir/r4/sid/template`,
  submission: `${apiUrl}/fhir/r4/sid/submission`,
  signatureRequest: `${apiUrl}/fhir/r4/sid/signature-request`,
  /** F1/F10 `rnummer`: the patient or case number the caller gave. */
  rnummer: `${apiUrl}/fhir/r4/sid/rnummer`,
  /** A1 `patient_id`, as the caller gave it. */
  patientId: `${apiUrl}/fhir/r4/sid/patient-id`,
});

/** RFC 6920 name of a SHA-256 digest, an identifier value that is the content's fingerprint. */
export const sha256Ni = (hex: string) => `ni:///sha-256;${Buffer.from(hex, "hex").toString("base64url")}`;

/**
 * Profiles of gematik ISiK (stage 4) the push Bundle follows. ISiKFormulardaten is the draft of the
 * Terminplanung module (branch questionnaire-rc4, never in a release; stage 5 renames it
 * ISiKFormularDaten): docs/fhir.md.
 */
export const ISIK = {
  documentReference: "https://gematik.de/fhir/isik/StructureDefinition/ISiKDokumentenMetadaten",
  questionnaireResponse: "https://gematik.de/fhir/isik/Terminplanung/StructureDefinition/ISiKFormulardaten",
} as const;

/** Code systems the push Bundle writes (docs/fhir.md says which codes and why). */
export const CODE_SYSTEMS = {
  /** Klinische Dokumentenklassen-Liste (DVMD): the document's type. */
  kdl: "http://dvmd.de/fhir/CodeSystem/kdl",
  /** IHE Deutschland XDS classCode: the document's category. */
  iheClass: "http://ihe-d.de/CodeSystems/IHEXDSclassCode",
  /** IHE Deutschland XDS healthcareFacilityTypeCode. */
  iheFacility: "http://ihe-d.de/CodeSystems/PatientBezogenenGesundheitsversorgung",
  /** IHE Deutschland XDS practiceSettingCode (doctors' specialties). */
  ihePracticeSetting: "http://ihe-d.de/CodeSystems/AerztlicheFachrichtungen",
  iheFormat: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode",
  confidentiality: "http://terminology.hl7.org/CodeSystem/v3-Confidentiality",
  observationCategory: "http://terminology.hl7.org/CodeSystem/observation-category",
  participantType: "http://terminology.hl7.org/CodeSystem/provenance-participant-type",
  /** ASTM E1762 signature types (R4 `signature-type`). */
  signatureType: "urn:iso-astm:E1762-95:2013",
  snomed: "http://snomed.info/sct",
  /** An identifier whose value is itself a URI (here `urn:uuid:`). */
  uri: "urn:ietf:rfc:3986",
  /** ClinSign's tag (meta.tag) naming a pushed Provenance, which has no identifier to be found by. */
  pushTag: "urn:clinsign:fhir:tag:push",
} as const;
