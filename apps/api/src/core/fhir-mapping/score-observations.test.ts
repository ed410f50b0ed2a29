import { describe, expect, it } from "vitest";
import { evaluateForm, templateSchema, type FormField, type ScoreField, type Template } from "@clinsign/contracts";
import { expectValidFhir } from "../../testing/fhir";
import { isikQuestionnaireResponse } from "./isik-questionnaire-response";
import { fullUrlOf } from "./push-bundle";
import { API, HIS_PATIENT, answersOf, libraryTemplate, submittedResponse, type LibraryId } from "./push-fixtures";
import { templateToQuestionnaire } from "./questionnaire-export";
import { questionnaireToTemplate } from "./questionnaire-import";
import { HL7, type FhirJson } from "./resources";
import { extractObservations, interpretationOf, codedObservations } from "./score-observations";

/**
 * Golden answer sets, the sums written out by hand (each answer 0-3), with the published band
 * (PHQ-9: Kroenke, Spitzer, Williams 2001; GAD-7: Spitzer et al. 2006) and the severity code
 * where FHIR's condition-severity has one.
 */
const GOLDEN: {
  id: LibraryId;
  prefix: "phq9" | "gad7";
  loinc: string;
  sets: { weights: number[]; sum: number; band: string; severity?: string }[];
}[] = [
  {
    id: "phq-9-en",
    prefix: "phq9",
    loinc: "44261-6",
    sets: [
      { weights: [0, 0, 1, 0, 0, 1, 0, 0, 0], sum: 2, band: "Minimal" },
      { weights: [2, 2, 1, 1, 1, 1, 1, 1, 1], sum: 11, band: "Moderate", severity: "6736007" },
      { weights: [3, 3, 3, 3, 2, 2, 2, 2, 2], sum: 22, band: "Severe", severity: "24484000" },
    ],
  },
  {
    id: "gad-7-de",
    prefix: "gad7",
    loinc: "70274-6",
    sets: [
      { weights: [0, 1, 0, 0, 1, 0, 0], sum: 2, band: "Minimal" },
      { weights: [2, 2, 2, 1, 1, 2, 2], sum: 12, band: "Mittelgradig", severity: "6736007" },
      { weights: [3, 3, 3, 3, 2, 2, 2], sum: 18, band: "Schwer", severity: "24484000" },
    ],
  },
];

const isikResponse = (id: LibraryId, answers: Record<string, string>) => {
  const template = libraryTemplate(id);
  return isikQuestionnaireResponse(submittedResponse(template, answers), {
    patient: HIS_PATIENT,
    questionnaireTitle: template.title,
  });
};

describe("scores as Observations (SDC observation-based extraction)", () => {
  for (const { id, prefix, loinc, sets } of GOLDEN) {
    for (const { weights, sum, band, severity } of sets) {
      it(`${id}: ${band} (${sum}) becomes one Observation with the server's score, its band and LOINC ${loinc}`, async () => {
        const template = libraryTemplate(id);
        const answers = answersOf(prefix, weights);
        const response = isikResponse(id, answers);
        const observations = codedObservations(template, answers, { response });
        expect(observations).toHaveLength(1);
        const [observation] = observations;
        await expectValidFhir(observation);

        const field = template.schema.fields.find((f): f is ScoreField => f.type === "score")!;
        const server = evaluateForm(template.schema, answers).scores.get(field.key)!.value!;
        expect(server).toEqual({ score: sum, band });
        expect(observation).toMatchObject({
          status: "final",
          category: [
            { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "survey" }] },
          ],
          code: { coding: [{ system: "http://loinc.org", code: loinc }] },
          valueInteger: server.score,
          interpretation: [{ text: server.band }],
          subject: response.subject,
          effectiveDateTime: response.authored,
          issued: response.authored,
          derivedFrom: [{ reference: fullUrlOf(response), type: "QuestionnaireResponse" }],
        });
        const coding = (observation!.interpretation as FhirJson[])[0]!.coding as { code: string }[] | undefined;
        expect(coding?.map((c) => c.code)).toEqual(severity ? [severity] : undefined);
      });
    }
  }

  it("makes none for a score not computed (a question unanswered) or a score field without a code", () => {
    const template = libraryTemplate("phq-9-en");
    const partial = answersOf("phq9", [1, 1, 1]);
    expect(codedObservations(template, partial, { response: isikResponse("phq-9-en", partial) })).toEqual([]);
    const uncoded = {
      schema: {
        ...template.schema,
        fields: template.schema.fields.map((f) => (f.type === "score" ? { ...f, code: undefined } : f)),
      },
    };
    const answers = answersOf("phq9", [1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(codedObservations(uncoded, answers, { response: isikResponse("phq-9-en", answers) })).toEqual([]);
  });

  it("ignores a score the client claimed: the value is the server's sum of the answers", () => {
    const template = libraryTemplate("gad-7-en");
    const answers = { ...answersOf("gad7", [1, 1, 1, 1, 1, 1, 1]), gad7_score: { score: 0, band: "Minimal" } };
    const [observation] = codedObservations(template, answers, {
      response: isikResponse("gad-7-en", answersOf("gad7", [1, 1, 1, 1, 1, 1, 1])),
    });
    expect(observation).toMatchObject({
      valueInteger: 7,
      interpretation: [{ text: "Mild", coding: [{ code: "255604002" }] }],
    });
  });

  it("maps band words to a severity code only where FHIR's severity value set has one", () => {
    expect(interpretationOf("Moderately severe")).toEqual({ text: "Moderately severe" });
    expect(interpretationOf("Ausgeprägt")).toEqual({ text: "Ausgeprägt" });
    expect(interpretationOf("Leicht")).toMatchObject({
      coding: [{ system: "http://snomed.info/sct", code: "255604002" }],
    });
  });
});

describe("QuestionnaireResponse/$extract", () => {
  it("gives the same Observations from the exported Questionnaire and the response as from the template and values", async () => {
    for (const { id, prefix, sets } of GOLDEN) {
      const template = libraryTemplate(id);
      const { questionnaire } = templateToQuestionnaire(template, API);
      for (const { weights } of sets) {
        const answers = answersOf(prefix, weights);
        const response = isikResponse(id, answers);
        const bundle = extractObservations(questionnaire, response);
        await expectValidFhir(bundle);
        expect(bundle).toMatchObject({ resourceType: "Bundle", type: "transaction" });
        const extracted = (bundle.entry as { resource: FhirJson }[]).map((e) => e.resource);
        expect(extracted).toEqual(codedObservations(template, answers, { response }));
      }
    }
  });

  it("refers to a stored response by its id, and refuses a response without an identifier", () => {
    const template = libraryTemplate("phq-9-en");
    const answers = answersOf("phq9", [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const stored = submittedResponse(template, answers);
    const { questionnaire } = templateToQuestionnaire(template, API);
    const [entry] = extractObservations(questionnaire, stored).entry as { resource: FhirJson }[];
    expect(entry!.resource.derivedFrom).toEqual([
      { reference: `QuestionnaireResponse/${String(stored.id)}`, type: "QuestionnaireResponse" },
    ]);
    expect(() => extractObservations(questionnaire, { ...stored, identifier: undefined })).toThrow(/identifier/);
  });
});

describe("the Questionnaire export for extraction and R4 readers", () => {
  const template = libraryTemplate("phq-9-de");
  const { questionnaire, issues } = templateToQuestionnaire(template, API);
  const items = questionnaire.item as (FhirJson & { linkId: string; extension?: FhirJson[] })[];

  it("puts the score's LOINC code in item.code and marks the item for observation extraction", async () => {
    expect(issues).toEqual([]);
    await expectValidFhir(questionnaire);
    const score = items.find((i) => i.linkId === "phq9_score")!;
    expect(score.code).toEqual([
      {
        system: "http://loinc.org",
        code: "44261-6",
        display: "Patient Health Questionnaire 9 item (PHQ-9) total score [Reported]",
      },
    ]);
    expect(score.extension).toContainEqual({ url: HL7.observationExtract, valueBoolean: true });
    const uncoded = items.filter((i) => i.linkId !== "phq9_score");
    for (const item of uncoded) expect(item.code, item.linkId).toBeUndefined();
  });

  it("writes ordinalValue beside itemWeight on every weighted option, with the same value", () => {
    const options = items.find((i) => i.linkId === "phq9_1")!.answerOption as { extension: FhirJson[] }[];
    expect(options.map((o) => o.extension)).toEqual(
      [0, 1, 2, 3].map((w) => [
        { url: HL7.itemWeight, valueDecimal: w },
        { url: HL7.ordinalValue, valueDecimal: w },
      ]),
    );
  });

  it("imports back with the code kept and nothing reported", () => {
    const back = questionnaireToTemplate(questionnaire);
    expect(back.issues).toEqual([]);
    expect(back.template!.schema).toEqual(template.schema);
  });
});

describe("a score field's code in the template schema", () => {
  const schemaWith = (code: unknown) => ({
    version: 1,
    fields: [
      { id: "a", key: "a", type: "radio", label: "A", options: [{ value: "1", label: "Ja", weight: 1 }] },
      { id: "s", key: "s", type: "score", label: "Summe", sources: ["a"], code } as FormField,
    ],
  });

  it("takes a system URI, a code and a display", () => {
    expect(templateSchema.safeParse(schemaWith({ system: "http://loinc.org", code: "44261-6" })).success).toBe(true);
    expect(
      templateSchema.safeParse(schemaWith({ system: "urn:oid:2.16.840.1.113883.6.1", code: "x", display: "X" }))
        .success,
    ).toBe(true);
  });

  it("refuses a system that is no URI, an empty code and anything else", () => {
    expect(templateSchema.safeParse(schemaWith({ system: "LOINC", code: "44261-6" })).success).toBe(false);
    expect(templateSchema.safeParse(schemaWith({ system: "http://loinc.org", code: "" })).success).toBe(false);
    expect(
      templateSchema.safeParse(schemaWith({ system: "http://loinc.org", code: "1", version: "2.77" })).success,
    ).toBe(false);
  });
});

describe("coded answers beyond scores (a question that carries a code)", () => {
  const LOINC = "http://loinc.org";
  const template: Template = {
    ...libraryTemplate("phq-9-de"),
    schema: {
      version: 1,
      fields: [
        {
          id: "w",
          key: "gewicht",
          type: "number",
          label: "Körpergewicht (kg)",
          code: { system: LOINC, code: "29463-7", display: "Body weight" },
        },
        {
          id: "r",
          key: "raucher",
          type: "radio",
          label: "Rauchen Sie?",
          options: [
            { value: "ja", label: "Ja" },
            { value: "nein", label: "Nein" },
          ],
          code: { system: LOINC, code: "72166-2", display: "Tobacco smoking status" },
        },
        { id: "d", key: "op", type: "date", label: "Letzte Operation", code: { system: LOINC, code: "80989-7" } },
        {
          id: "c",
          key: "allergie",
          type: "checkbox",
          label: "Allergien bekannt",
          code: { system: LOINC, code: "52473-6" },
        },
        { id: "t", key: "notiz", type: "text", label: "Anmerkung" },
      ],
    },
  };
  // As core/fhir answers a submission: numbers as decimals, choices as codings, dates, booleans, text.
  const response: FhirJson = {
    resourceType: "QuestionnaireResponse",
    identifier: { system: `${API}/fhir/r4/sid/submission`, value: "4d0c3f6a-1b2e-4c5d-9e8f-7a6b5c4d3e2f" },
    status: "completed",
    subject: { identifier: HIS_PATIENT },
    authored: "2026-11-30T08:15:00.000Z",
    item: [
      { linkId: "gewicht", text: "Körpergewicht (kg)", answer: [{ valueDecimal: 72.5 }] },
      { linkId: "raucher", text: "Rauchen Sie?", answer: [{ valueCoding: { code: "nein", display: "Nein" } }] },
      { linkId: "op", text: "Letzte Operation", answer: [{ valueDate: "2024-03-01" }] },
      { linkId: "allergie", text: "Allergien bekannt", answer: [{ valueBoolean: true }] },
      { linkId: "notiz", text: "Anmerkung", answer: [{ valueString: "keine" }] },
    ],
  };

  it("exports each code with the extraction marker and imports it back unchanged", async () => {
    const { questionnaire, issues } = templateToQuestionnaire(template, API);
    expect(issues).toEqual([]);
    await expectValidFhir(questionnaire);
    const items = questionnaire.item as (FhirJson & { linkId: string; extension?: FhirJson[] })[];
    for (const linkId of ["gewicht", "raucher", "op", "allergie"]) {
      const item = items.find((i) => i.linkId === linkId)!;
      expect(item.code, linkId).toHaveLength(1);
      expect(item.extension, linkId).toContainEqual({ url: HL7.observationExtract, valueBoolean: true });
    }
    expect(items.find((i) => i.linkId === "notiz")!.code).toBeUndefined();
    const back = questionnaireToTemplate(questionnaire);
    expect(back.issues).toEqual([]);
    expect(back.template!.schema).toEqual(template.schema);
  });

  it("become Observations of the answer, the same from the push as from $extract", async () => {
    const values = { gewicht: 72.5, raucher: "nein", op: "2024-03-01", allergie: true, notiz: "keine" };
    const pushed = codedObservations(template, values, { response });
    const { questionnaire } = templateToQuestionnaire(template, API);
    const extracted = (extractObservations(questionnaire, response).entry as { resource: FhirJson }[]).map(
      (e) => e.resource,
    );
    expect(extracted).toEqual(pushed);
    for (const observation of pushed) await expectValidFhir(observation);
    const summary = pushed.map((o) => {
      const { code, valueQuantity, valueCodeableConcept, valueDateTime, valueBoolean } = o as Record<string, FhirJson>;
      const coding = (code!.coding as { code: string }[])[0]!;
      return [coding.code, valueQuantity ?? valueCodeableConcept ?? valueDateTime ?? valueBoolean];
    });
    expect(summary).toEqual([
      ["29463-7", { value: 72.5 }],
      ["72166-2", { coding: [{ code: "nein", display: "Nein" }] }],
      ["80989-7", "2024-03-01"],
      ["52473-6", true],
    ]);
  });
});
