import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type { FormField, Template } from "@clinsign/contracts";
import { expectValidFhir } from "../../testing/fhir";
import { isikQuestionnaireResponse } from "./isik-questionnaire-response";
import { fullUrlOf } from "./push-bundle";
import { API, HIS_PATIENT, answersOf, libraryTemplate, submittedResponse, type LibraryId } from "./push-fixtures";
import { templateToQuestionnaire } from "./questionnaire-export";
import { HL7, type FhirJson } from "./resources";
import { extractObservations, codedObservations } from "./score-observations";

/**
 * Our Observations against CSIRO's reference implementation of SDC template-based `$extract`
 * (`@aehrc/sdc-template-extract`), run on the Questionnaire we export and the same response.
 *
 * What legitimately differs, and why:
 * - `identifier` (ours only): a name-based UUID (v5, SHA-1) of the response's identifier and the
 *   item, which makes extracting twice create nothing twice; FHIRPath has no SHA-1, so a template
 *   cannot compute it. For the same reason the Bundle entries differ: ours are conditional creates
 *   (`ifNoneExist` on that identifier) under name-based fullUrls, theirs plain POSTs under random
 *   `urn:uuid:` fullUrls.
 * - `derivedFrom` of a response without an id (the push Bundle's, named by its name-based fullUrl):
 *   ours points at that fullUrl, the template has nothing to point with and leaves it out. A stored
 *   response (what `QuestionnaireResponse/$extract` reads) has an id, and both write
 *   `QuestionnaireResponse/<id>`.
 * Everything else (status, category, code, subject, encounter, basedOn, performer, effective,
 * issued, the value as valueInteger or valueQuantity, interpretation with its severity code, and
 * derivedFrom of a stored response) is compared whole.
 */

// The package's ES build imports `fhirpath/fhir-context/r4` as a directory, which Node's ES loader
// refuses; its CommonJS build loads. `require` is untyped: the type is the package's own.
const { inAppExtract, extractResultIsOperationOutcome } = createRequire(import.meta.url)(
  "@aehrc/sdc-template-extract",
) as typeof import("@aehrc/sdc-template-extract");

/** The reference implementation's `$extract`: its Bundle and the issues it reports (failed: the test fails). */
async function theirExtract(questionnaire: FhirJson, response: FhirJson) {
  const { extractSuccess, extractResult } = await inAppExtract(structuredClone(response), questionnaire, null);
  if (!extractSuccess || extractResultIsOperationOutcome(extractResult))
    throw new Error(`the reference implementation failed: ${JSON.stringify(extractResult)}`);
  expect(extractResult.extractedBundle).toMatchObject({ resourceType: "Bundle", type: "transaction" });
  return extractResult;
}

/** Its Observations, where it reports no issue. */
async function theirObservations(questionnaire: FhirJson, response: FhirJson): Promise<FhirJson[]> {
  const { extractedBundle, issues } = await theirExtract(questionnaire, response);
  expect(issues).toBeNull();
  return (extractedBundle.entry ?? []).map((e: { resource: FhirJson }) => e.resource);
}

/** Ours, by `$extract` (Questionnaire + response) and from the template and values: one shape. */
function ourObservations(template: Template, answers: Record<string, unknown>, response: FhirJson): FhirJson[] {
  const { questionnaire } = templateToQuestionnaire(template, API);
  const extracted = (extractObservations(questionnaire, response).entry as { resource: FhirJson }[]).map(
    (e) => e.resource,
  );
  expect(extracted).toEqual(codedObservations(template, answers, { response }));
  return extracted;
}

/** An Observation without what a template cannot compute (see above). */
const withoutIdentity = ({ identifier: _identifier, ...rest }: FhirJson) => rest;

/** Golden answer sets of score-observations.test.ts: the sums and bands written out by hand there. */
const GOLDEN: { id: LibraryId; prefix: "phq9" | "gad7"; sets: { weights: number[]; sum: number; band: string }[] }[] = [
  {
    id: "phq-9-en",
    prefix: "phq9",
    sets: [
      { weights: [0, 0, 1, 0, 0, 1, 0, 0, 0], sum: 2, band: "Minimal" },
      { weights: [2, 2, 1, 1, 1, 1, 1, 1, 1], sum: 11, band: "Moderate" },
      { weights: [3, 3, 3, 3, 2, 2, 2, 2, 2], sum: 22, band: "Severe" },
    ],
  },
  {
    id: "gad-7-de",
    prefix: "gad7",
    sets: [
      { weights: [0, 1, 0, 0, 1, 0, 0], sum: 2, band: "Minimal" },
      { weights: [2, 2, 2, 1, 1, 2, 2], sum: 12, band: "Mittelgradig" },
      { weights: [3, 3, 3, 3, 2, 2, 2], sum: 18, band: "Schwer" },
    ],
  },
];

describe("$extract: our Observations against the reference implementation (@aehrc/sdc-template-extract)", () => {
  for (const { id, prefix, sets } of GOLDEN) {
    for (const { weights, sum, band } of sets) {
      it(`${id}: ${band} (${sum}) gives the same Observation, field by field`, async () => {
        const template = libraryTemplate(id);
        const answers = answersOf(prefix, weights);
        const response = submittedResponse(template, answers);
        const { questionnaire } = templateToQuestionnaire(template, API);
        await expectValidFhir(questionnaire);

        const theirs = await theirObservations(questionnaire, response);
        const ours = ourObservations(template, answers, response);
        expect(theirs).toHaveLength(1);
        expect(ours).toHaveLength(1);
        const [their, our] = [theirs[0]!, ours[0]!];
        await expectValidFhir(their);
        expect(their.valueInteger).toBe(sum);
        expect(their.interpretation).toMatchObject([{ text: band }]);
        expect(their.derivedFrom).toEqual([
          { reference: `QuestionnaireResponse/${String(response.id)}`, type: "QuestionnaireResponse" },
        ]);
        expect(Object.keys(our).filter((key) => !(key in their))).toEqual(["identifier"]);
        expect(their).toEqual(withoutIdentity(our));
      });
    }
  }

  it("copies a caller's response's encounter, author (as performer) and basedOn as ours does", async () => {
    const template = libraryTemplate("phq-9-de");
    const answers = answersOf("phq9", [1, 2, 3, 0, 1, 2, 3, 0, 1]);
    const response = {
      ...submittedResponse(template, answers),
      encounter: { reference: "Encounter/e-17" },
      author: { reference: "Practitioner/p-4" },
      basedOn: [{ reference: "ServiceRequest/s-1" }, { reference: "CarePlan/c-2" }],
    };
    const { questionnaire } = templateToQuestionnaire(template, API);
    const [their] = await theirObservations(questionnaire, response);
    const [our] = ourObservations(template, answers, response);
    expect(their).toMatchObject({
      encounter: response.encounter,
      performer: [response.author],
      basedOn: response.basedOn,
    });
    expect(their).toEqual(withoutIdentity(our!));
  });

  it("writes a fractional sum as valueQuantity and a whole one as valueInteger, as ours does", async () => {
    const template = halvesTemplate();
    const { questionnaire } = templateToQuestionnaire(template, API);
    for (const [answers, value] of [
      [{ a: "half", b: "one" }, { valueQuantity: { value: 1.5 } }],
      [{ a: "half", b: "half" }, { valueInteger: 1 }],
    ] as const) {
      const response = submittedResponse(template, answers);
      const [their] = await theirObservations(questionnaire, response);
      const [our] = ourObservations(template, answers, response);
      expect(their).toMatchObject({ ...value, interpretation: [{ text: "Leicht" }] });
      expect(their).toEqual(withoutIdentity(our!));
    }
  });

  it("makes no Observation for a score not computed, as ours makes none", async () => {
    const template = libraryTemplate("gad-7-en");
    const answers = answersOf("gad7", [1, 1, 1]);
    const response = submittedResponse(template, answers);
    const { questionnaire } = templateToQuestionnaire(template, API);
    const { extractedBundle, issues } = await theirExtract(questionnaire, response);
    expect(extractedBundle.entry).toEqual([]);
    // It says why: the template's item has no answer in the response.
    expect(issues).toMatchObject({ issue: [{ details: { text: expect.stringContaining("gad7-score-observation") } }] });
    expect(ourObservations(template, answers, response)).toEqual([]);
  });

  it("leaves out derivedFrom where the response has no id (the push Bundle's), and only that", async () => {
    const template = libraryTemplate("gad-7-de");
    const answers = answersOf("gad7", [2, 2, 2, 1, 1, 2, 2]);
    const response = isikQuestionnaireResponse(submittedResponse(template, answers), {
      patient: HIS_PATIENT,
      questionnaireTitle: template.title,
    });
    expect(response.id).toBeUndefined();
    const { questionnaire } = templateToQuestionnaire(template, API);
    const [their] = await theirObservations(questionnaire, response);
    const [our] = ourObservations(template, answers, response);
    expect(our!.derivedFrom).toEqual([{ reference: fullUrlOf(response), type: "QuestionnaireResponse" }]);
    expect(their!.subject).toEqual(response.subject);
    const { derivedFrom: _derivedFrom, ...comparable } = withoutIdentity(our!);
    expect(their).toEqual(comparable);
  });
});

describe("the exported Questionnaire for template-based extraction", () => {
  it("names a contained Observation template from each coded score item, and keeps the observation-based marker", () => {
    const { questionnaire } = templateToQuestionnaire(libraryTemplate("phq-9-en"), API);
    const score = (questionnaire.item as (FhirJson & { linkId: string; extension: FhirJson[] })[]).find(
      (i) => i.linkId === "phq9_score",
    )!;
    expect(score.extension).toContainEqual({ url: HL7.observationExtract, valueBoolean: true });
    expect(score.extension).toContainEqual({
      url: HL7.templateExtract,
      extension: [{ url: "template", valueReference: { reference: "#phq9-score-observation" } }],
    });
    const [observation, ...others] = questionnaire.contained as FhirJson[];
    expect(others).toEqual([]);
    expect(observation).toMatchObject({
      resourceType: "Observation",
      id: "phq9-score-observation",
      code: { coding: [{ system: "http://loinc.org", code: "44261-6" }] },
    });
    // Whole weights make whole sums: the template names one value[x], as a validator wants.
    expect(Object.keys(observation!).filter((key) => /^_?value/.test(key))).toEqual(["_valueInteger"]);
    const halves = templateToQuestionnaire(halvesTemplate(), API).questionnaire.contained as FhirJson[];
    expect(Object.keys(halves[0]!).filter((key) => /^_?value/.test(key))).toEqual(["_valueInteger", "valueQuantity"]);
  });

  it("gives two scores whose linkIds read alike as ids their own templates, and both Observations", async () => {
    const halves = halvesTemplate();
    const [a, b, score] = halves.schema.fields;
    const twin = { ...score!, id: "t", key: "s-total", code: { system: "http://loinc.org", code: "70274-6" } };
    const template = { ...halves, schema: { version: 1, fields: [a!, b!, score!, twin] } };
    const { questionnaire, issues } = templateToQuestionnaire(template, API);
    expect(issues).toEqual([]);
    await expectValidFhir(questionnaire);
    expect((questionnaire.contained as FhirJson[]).map((r) => r.id)).toEqual([
      "s-total-observation",
      "s-total-observation-2",
    ]);

    const answers = { a: "one", b: "half" };
    const response = submittedResponse(template, answers);
    const theirs = await theirObservations(questionnaire, response);
    const ours = ourObservations(template, answers, response);
    expect(theirs.map((o) => o.code)).toEqual([
      { coding: [HALVES], text: "Summe" },
      { coding: [twin.code], text: "Summe" },
    ]);
    expect(theirs).toEqual(ours.map(withoutIdentity));
  });
});

const HALVES = { system: "https://example.org/fhir/CodeSystem/scores", code: "halves" };

/** A score of half points, its bands in German: a sum such as 1.5 is no integer. */
function halvesTemplate(): Template {
  const options = [
    { value: "half", label: "Halb", weight: 0.5 },
    { value: "one", label: "Eins", weight: 1 },
  ];
  const fields: FormField[] = [
    { id: "a", key: "a", type: "radio", label: "A", options },
    { id: "b", key: "b", type: "radio", label: "B", options },
    {
      id: "s",
      key: "s_total",
      type: "score",
      label: "Summe",
      sources: ["a", "b"],
      bands: [
        { min: 0, max: 0.5, label: "Minimal" },
        { min: 1, max: 2, label: "Leicht" },
      ],
      code: HALVES,
    },
  ];
  return { ...libraryTemplate("phq-9-en"), identifier: "halves-1a2b3c4d", schema: { version: 1, fields } };
}
