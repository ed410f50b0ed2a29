import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Template } from "@clinsign/contracts";
import { expectValidFhir } from "../../testing/fhir";
import { DEFAULT_CLASS, DEFAULT_KDL_TYPE, documentReferenceLink } from "./isik-document";
import { isikProblems } from "./isik-profiles";
import { isikQuestionnaireResponse } from "./isik-questionnaire-response";
import {
  API,
  HIS_PATIENT,
  REQUEST_ID,
  answersOf,
  libraryTemplate,
  sealedConsent,
  submittedResponse,
} from "./push-fixtures";
import { CLINSIGN, HL7, ISIK, type FhirJson } from "./resources";

const REMOVE = Symbol("remove");
type Path = (string | number)[];

/** A copy of `resource` with the element at `path` set to `value` or removed (the builders' output is left alone). */
function edited(resource: FhirJson, path: Path, value: unknown): FhirJson {
  const copy = structuredClone(resource);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

/** A form with a file and a signature beside the PHQ-9's questions, as a clinic builds one. */
function formWithUploads(): Template {
  const template = libraryTemplate("phq-9-de");
  const fields = [
    ...template.schema.fields,
    { id: "f", key: "befund", type: "file" as const, label: "Vorbefund" },
    { id: "t", key: "anmerkung", type: "text" as const, label: "" },
  ];
  return { ...template, schema: { ...template.schema, fields } };
}

describe("ISiKDokumentenMetadaten: the sealed PDF", () => {
  it("meets every transcribed rule with the defaults: KDL AM050199, class ADM, KHS, one content", async () => {
    const document = sealedConsent();
    await expectValidFhir(document);
    expect(isikProblems(document)).toEqual([]);
    expect(document).toMatchObject({
      meta: { profile: [ISIK.documentReference] },
      status: "current",
      docStatus: "final",
      type: { coding: [{ system: "http://dvmd.de/fhir/CodeSystem/kdl", ...DEFAULT_KDL_TYPE }] },
      category: [{ coding: [{ system: "http://ihe-d.de/CodeSystems/IHEXDSclassCode", ...DEFAULT_CLASS }] }],
      securityLabel: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-Confidentiality", code: "N" }] }],
      content: [
        {
          attachment: {
            contentType: "application/pdf",
            language: "de",
            size: 48213,
            hash: "2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
          },
        },
      ],
      context: { facilityType: { coding: [{ code: "KHS" }] }, practiceSetting: { coding: [{ code: "ALLG" }] } },
    });
    expect(document.content).toHaveLength(1);
  });

  it("takes the console's type with its class, and says what it replaces", async () => {
    const document = sealedConsent({
      type: { code: "AM010303", display: "Operationsaufklärungsbogen" },
      confidentiality: "R",
      replacesRequestId: "3f2b8c1d-5e4a-4b6c-8d7e-9f0a1b2c3d4e",
      practiceSetting: { code: "CHIR", display: "Chirurgie" },
    });
    await expectValidFhir(document);
    expect(isikProblems(document)).toEqual([]);
    expect(document.category).toEqual([
      { coding: [{ system: "http://ihe-d.de/CodeSystems/IHEXDSclassCode", ...DEFAULT_CLASS }] },
    ]);
    expect(document).toMatchObject({
      type: { coding: [{ code: "AM010303" }] },
      securityLabel: [{ coding: [{ code: "R" }] }],
      relatesTo: [
        {
          code: "replaces",
          target: {
            identifier: {
              system: `${API}/fhir/r4/sid/signature-request`,
              value: "3f2b8c1d-5e4a-4b6c-8d7e-9f0a1b2c3d4e",
            },
          },
        },
      ],
    });
  });

  it("leaves the class to the server for a type outside KDL's administrative chapter", async () => {
    const document = sealedConsent({ type: { code: "SF190102", display: "Einwilligung Studie" } });
    await expectValidFhir(document);
    expect(isikProblems(document)).toEqual([]);
    expect(document.category).toBeUndefined();
    expect(document).toMatchObject({ type: { coding: [{ code: "SF190102", display: "Einwilligung Studie" }] } });
  });

  it("carries the bytes inline instead of a link where the organization says so (ISiK Dokumentenbereitstellung)", async () => {
    const bytes = Buffer.from("%PDF-1.7\n");
    const pdf = {
      size: bytes.length,
      sha1Base64: createHash("sha1").update(bytes).digest("base64"),
      sha256Hex: createHash("sha256").update(bytes).digest("hex"),
      data: bytes.toString("base64"),
    };
    const document = sealedConsent({ pdf });
    await expectValidFhir(document);
    expect(isikProblems(document)).toEqual([]);
    const attachment = (document.content as { attachment: FhirJson }[])[0]!.attachment;
    expect(attachment).toMatchObject({ data: pdf.data, size: 9, hash: pdf.sha1Base64 });
    expect(attachment.url).toBeUndefined();
  });

  const consent = sealedConsent();
  const removals: [what: string, path: Path, value: unknown, problem: string][] = [
    ["the profile", ["meta"], REMOVE, "meta.profile"],
    ["the master identifier", ["masterIdentifier"], REMOVE, "masterIdentifier"],
    [
      "the master identifier's fixed system",
      ["masterIdentifier", "system"],
      "urn:ietf:rfc:6920",
      "masterIdentifier.system",
    ],
    ["an OID as master identifier", ["masterIdentifier", "value"], "ni:///sha-256;abc", "masterIdentifier.value"],
    ["the KDL coding", ["type", "coding", 0, "system"], "http://loinc.org", "type.coding:KDL"],
    ["the KDL display", ["type", "coding", 0, "display"], REMOVE, "type.coding:KDL.display"],
    ["a KDL code", ["type", "coding", 0, "code"], "AM05", "type.coding:KDL.code"],
    ["the class's display", ["category", 0, "coding", 0, "display"], REMOVE, "category.coding:XDS.display"],
    ["the subject", ["subject"], REMOVE, "subject"],
    ["the subject's reference", ["subject", "reference"], REMOVE, "subject.reference"],
    ["a patient as subject", ["subject"], { reference: "Group/1" }, "subject.reference"],
    ["the description", ["description"], REMOVE, "description"],
    ["the confidentiality", ["securityLabel"], REMOVE, "securityLabel"],
    ["N, R or V", ["securityLabel", 0, "coding", 0, "code"], "U", "securityLabel"],
    ["a single content", ["content", 1], (consent.content as FhirJson[])[0], "content"],
    ["the attachment's language", ["content", 0, "attachment", "language"], REMOVE, "content.attachment.language"],
    ["the attachment's creation", ["content", 0, "attachment", "creation"], REMOVE, "content.attachment.creation"],
    ["the format", ["content", 0, "format"], REMOVE, "content.format"],
    ["the context", ["context"], REMOVE, "context"],
    ["the facility type", ["context", "facilityType"], REMOVE, "context.facilityType"],
    ["the practice setting", ["context", "practiceSetting"], REMOVE, "context.practiceSetting"],
    ["no custodian", ["custodian"], { display: "Archiv" }, "custodian"],
  ];
  for (const [what, path, value, problem] of removals)
    it(`is refused by the checker without ${what}`, () => {
      expect(isikProblems(edited(consent, path, value))).toEqual([expect.stringMatching(new RegExp(`^${problem}: `))]);
    });
});

describe("ISiKFormulardaten: the submission's QuestionnaireResponse", () => {
  const template = formWithUploads();
  const answers = {
    ...answersOf("phq9", [1, 0, 0, 1, 0, 0, 0, 0, 0]),
    befund: [{ name: "befund.pdf", path: "uploads/x", size: 1200, type: "application/pdf" }],
    anmerkung: "Seit Oktober",
  };
  const raw = submittedResponse(template, answers);
  const shaped = isikQuestionnaireResponse(raw, {
    patient: HIS_PATIENT,
    questionnaireTitle: template.title,
    signedDocument: documentReferenceLink(API, REQUEST_ID),
  });
  const items = shaped.item as { linkId: string; text: string; answer: FhirJson[] }[];

  it("meets every transcribed rule and stays valid R4", async () => {
    await expectValidFhir(shaped);
    expect(isikProblems(shaped)).toEqual([]);
    expect(isikProblems(raw).length).toBeGreaterThan(0);
    expect(shaped).toMatchObject({
      meta: { profile: [ISIK.questionnaireResponse] },
      status: "completed",
      _questionnaire: { extension: [{ url: HL7.display, valueString: template.title }] },
      authored: raw.authored,
      identifier: raw.identifier,
    });
    expect(shaped.id).toBeUndefined();
  });

  it("names the hospital's patient, links the sealed PDF, and gives every coding a display", () => {
    expect(shaped.subject).toMatchObject({ type: "Patient", identifier: HIS_PATIENT });
    expect(shaped.extension).toEqual([
      { url: CLINSIGN.signedDocument, valueReference: documentReferenceLink(API, REQUEST_ID) },
    ]);
    const coded = items.flatMap((i) => i.answer).filter((a) => a.valueCoding);
    expect(coded.length).toBe(9);
    for (const answer of coded) expect((answer.valueCoding as { display?: string }).display).toBeTruthy();
  });

  it("leaves out the attachment answers the profile does not allow, and shows the linkId where a label is empty", () => {
    expect(items.map((i) => i.linkId)).not.toContain("befund");
    expect(items.find((i) => i.linkId === "anmerkung")).toMatchObject({
      text: "anmerkung",
      answer: [{ valueString: "Seit Oktober" }],
    });
    expect(items.find((i) => i.linkId === "phq9_score")).toMatchObject({ answer: [{ valueDecimal: 2 }] });
  });

  it("refuses a response whose patient the browser named, and one not completed", () => {
    const reported = {
      ...raw,
      subject: undefined,
      extension: [{ url: CLINSIGN.patientReportedIdentifier, valueIdentifier: { system: "x", value: "1" } }],
    };
    const input = { patient: HIS_PATIENT, questionnaireTitle: "PHQ-9" };
    expect(() => isikQuestionnaireResponse(reported, input)).toThrow(/browser/);
    expect(() => isikQuestionnaireResponse({ ...raw, status: "in-progress" }, input)).toThrow(/completed/);
  });

  const removals: [what: string, path: Path, value: unknown, problem: string][] = [
    ["the profile", ["meta", "profile"], [], "meta.profile"],
    ["status completed", ["status"], "amended", "status"],
    ["the form's title", ["_questionnaire"], REMOVE, "questionnaire.extension:display"],
    ["the subject", ["subject"], REMOVE, "subject"],
    ["authored", ["authored"], REMOVE, "authored"],
    ["an item's text", ["item", 0, "text"], REMOVE, "item\\[0\\].text"],
    [
      "a coding's display",
      ["item", 0, "answer", 0, "valueCoding", "display"],
      REMOVE,
      "item\\[0\\].answer\\[0\\].valueCoding.display",
    ],
    [
      "an allowed answer type",
      ["item", 0, "answer", 0],
      { valueAttachment: { title: "x" } },
      "item\\[0\\].answer\\[0\\]",
    ],
  ];
  for (const [what, path, value, problem] of removals)
    it(`is refused by the checker without ${what}`, () => {
      expect(isikProblems(edited(shaped, path, value))).toEqual([expect.stringMatching(new RegExp(`^${problem}: `))]);
    });
});
