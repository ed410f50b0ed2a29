import type { FhirJson } from "./resources";

/** The version of Structured Data Capture the forms target: STU4 (4.0.0, published 2026-03). */
export const SDC_IMPLEMENTATION_GUIDE = "http://hl7.org/fhir/uv/sdc/ImplementationGuide/hl7.fhir.uv.sdc|4.0.0";

const searchParam = (name: string, type: string, documentation: string) => ({ name, type, documentation });
const paging = [
  searchParam("_count", "number", "Page size, 1-100 (default 20)."),
  searchParam("_page", "string", "Opaque cursor from a Bundle's next link."),
];

/**
 * What `/fhir/r4/` supports, exactly: nothing more is answered (other types 404, other
 * interactions 405, unknown search parameters 400), all as OperationOutcome.
 */
export function capabilityStatement(apiUrl: string): FhirJson {
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: "2026-11-29",
    kind: "instance",
    software: { name: "ClinSign" },
    implementation: { description: "ClinSign forms and signatures", url: `${apiUrl}/fhir/r4` },
    fhirVersion: "4.0.1",
    // Structured Data Capture STU4 (4.0.0, published 2026-03): item weights, calculated scores and
    // observation-based extraction follow it.
    implementationGuide: [SDC_IMPLEMENTATION_GUIDE],
    format: ["application/fhir+json", "json"],
    rest: [
      {
        mode: "server",
        documentation:
          "Read-only except Questionnaire create and QuestionnaireResponse $extract (SDC STU4, 4.0.0, 2026-03), which stores nothing. Every call but /metadata needs an API token as Authorization: Bearer; each organization sees only its own resources (another organization's answer 404).",
        security: {
          cors: false,
          description: "API tokens of the organization (Authorization: Bearer), over HTTPS only.",
        },
        resource: [
          {
            type: "Questionnaire",
            documentation:
              "One per form template: id and url follow the template identifier, version its schema version. create imports a Questionnaire as a new template (422 OperationOutcome naming what is not supported; warnings name what is not kept).",
            interaction: [{ code: "read" }, { code: "search-type" }, { code: "create" }],
            versioning: "no-version",
            searchParam: [
              searchParam("url", "uri", "The Questionnaire's canonical url (a |version suffix is ignored)."),
              searchParam("identifier", "token", "The template identifier."),
              searchParam("status", "token", "draft | active | retired"),
              ...paging,
            ],
          },
          {
            type: "QuestionnaireResponse",
            documentation:
              "One per form submission; questionnaire is the template's url|version at submission time; subject.identifier the patient or case number (rnummer).",
            interaction: [{ code: "read" }, { code: "search-type" }],
            versioning: "no-version",
            operation: [
              {
                name: "extract",
                definition: "http://hl7.org/fhir/uv/sdc/OperationDefinition/QuestionnaireResponse-extract",
                documentation:
                  "Observation-based extraction: each coded score item as an Observation, answered as a transaction Bundle. QuestionnaireResponse/{id}/$extract (GET or POST) for a stored response; POST QuestionnaireResponse/$extract with the response or Parameters naming questionnaire-response.",
              },
            ],
            searchParam: [
              searchParam(
                "patient",
                "reference",
                "Only with the :identifier modifier: patient:identifier=[system|]rnummer.",
              ),
              searchParam("subject", "reference", "Only as subject:identifier, the same as patient:identifier."),
              searchParam(
                "questionnaire",
                "reference",
                "The Questionnaire url (|version ignored), or the template identifier.",
              ),
              searchParam("authored", "date", "Submission time with eq, gt, ge, lt, le; two for a range."),
              searchParam("_sort", "string", "authored or -authored (default)."),
              ...paging,
            ],
          },
          {
            type: "DocumentReference",
            documentation:
              "One per sealed PDF (completed signature request); masterIdentifier is the sealed PDF's SHA-256 (RFC 6920 ni: URI); attachment.hash is SHA-1 as FHIR defines it.",
            interaction: [{ code: "read" }, { code: "search-type" }],
            versioning: "no-version",
            searchParam: [
              searchParam(
                "patient",
                "reference",
                "Only with the :identifier modifier: patient:identifier=[system|]patient_id as given to A1.",
              ),
              searchParam("subject", "reference", "Only as subject:identifier, the same as patient:identifier."),
              ...paging,
            ],
          },
        ],
      },
    ],
  };
}
