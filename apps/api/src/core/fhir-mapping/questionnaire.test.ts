import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fhirpath from "fhirpath";
import r4 from "fhirpath/fhir-context/r4";
import {
  evaluateForm,
  questionnaireLibrary,
  type FormField,
  type ScoreField,
  type Template,
} from "@clinsign/contracts";
import { expectValidFhir, R4_CODES } from "../../testing/fhir";
import { templateToQuestionnaire } from "./questionnaire-export";
import { questionnaireToTemplate } from "./questionnaire-import";
import { CLINSIGN, HL7, type FhirJson } from "./resources";

const API = "https://api.example.org";
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, "fixtures", name), "utf8")) as FhirJson;

/** Every field type, every attribute, and each kind of condition. */
const EVERY_FIELD: FormField[] = [
  { id: "h1", type: "heading", label: "Angaben zur Person", helpText: "Bitte vollständig" },
  { id: "p1", type: "paragraph", key: "intro", label: "Alle Angaben sind freiwillig." },
  {
    id: "f1",
    type: "text",
    key: "name",
    label: "Name",
    required: true,
    placeholder: "Vor- und Nachname",
    helpText: "Wie auf der Karte",
    minLength: 2,
    maxLength: 80,
    pattern: "^[^0-9]+$",
  },
  { id: "f2", type: "textarea", key: "notes", label: "Bemerkungen", maxLength: 2000 },
  { id: "f3", type: "email", key: "mail", label: "E-Mail" },
  { id: "f4", type: "phone", key: "tel", label: "Telefon" },
  { id: "f5", type: "number", key: "weight", label: "Gewicht", min: 1, max: 400 },
  { id: "f6", type: "date", key: "born", label: "Geburtsdatum", min: "1900-01-01", max: "2030-12-31" },
  {
    id: "f7",
    type: "select",
    key: "insurance",
    label: "Versicherung",
    options: ["GKV", { value: "pkv", label: "Privat" }],
  },
  { id: "f8", type: "radio", key: "sex", label: "Geschlecht", options: [{ value: "f", label: "weiblich" }, "m", "d"] },
  {
    id: "f9",
    type: "multiselect",
    key: "allergies",
    label: "Allergien",
    options: ["Pollen", "Nüsse", "andere"],
  },
  { id: "f10", type: "checkbox", key: "smoker", label: "Raucher" },
  {
    id: "f11",
    type: "file",
    key: "scan",
    label: "Versichertenkarte",
    accept: "image/*,.pdf,application/pdf",
    maxSizeMb: 5,
  },
  { id: "f12", type: "signature", key: "sig", label: "Unterschrift", required: true },
  {
    id: "c1",
    type: "number",
    key: "packs",
    label: "Packungen",
    visibleWhen: { field: "smoker", operator: "equals", value: true },
  },
  {
    id: "c2",
    type: "text",
    key: "other",
    label: "Welche?",
    visibleWhen: { field: "allergies", operator: "in", value: ["andere", "Nüsse"] },
  },
  {
    id: "c3",
    type: "text",
    key: "private",
    label: "Tarif",
    visibleWhen: { field: "insurance", operator: "notEquals", value: "GKV" },
  },
  { id: "c4", type: "text", key: "tel-note", label: "Erreichbar", visibleWhen: { field: "tel", operator: "filled" } },
  {
    id: "c5",
    type: "text",
    key: "mail-why",
    label: "Warum keine E-Mail?",
    visibleWhen: { field: "mail", operator: "empty" },
  },
  {
    id: "c6",
    type: "date",
    key: "since",
    label: "Seit",
    visibleWhen: {
      all: [
        { field: "smoker", operator: "equals", value: true },
        { field: "packs", operator: "equals", value: 2 },
      ],
    },
  },
  {
    id: "c7",
    type: "text",
    key: "born-note",
    label: "Hinweis",
    visibleWhen: {
      any: [
        { field: "born", operator: "equals", value: "2000-01-01" },
        { field: "sex", operator: "in", value: ["d", "f"] },
      ],
    },
  },
  {
    id: "s1",
    type: "radio",
    key: "pain",
    label: "Schmerzen",
    options: [
      { value: "none", label: "keine", weight: 0 },
      { value: "strong", label: "stark", weight: 2.5 },
    ],
  },
  {
    id: "s2",
    type: "score",
    key: "pain-score",
    label: "Schmerzwert",
    sources: ["pain"],
    bands: [
      { min: 0, max: 1, label: "gering" },
      { min: 2, max: 3, label: "hoch" },
    ],
  },
];

const template = (fields: FormField[]): Template => ({
  id: "00000000-0000-4000-8000-000000000001",
  identifier: "anamnese-1a2b3c4d",
  title: "Anamnese",
  description: "Vor dem Termin",
  status: "active",
  schema: { version: 3, fields },
  defaultLanguage: "de",
  translations: {},
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-02T00:00:00.000Z",
});

type Item = {
  type: string;
  linkId: string;
  extension?: { url: string; valueCodeableConcept?: { coding: { code: string }[] } }[];
  enableWhen?: { operator: string }[];
  enableBehavior?: string;
  item?: Item[];
};
const allItems = (items: Item[] = []): Item[] => items.flatMap((i) => [i, ...allItems(i.item)]);

describe("template → Questionnaire", () => {
  const { questionnaire, issues } = templateToQuestionnaire(template(EVERY_FIELD), API);

  it("is valid FHIR R4 and uses only R4 codes", async () => {
    await expectValidFhir(questionnaire);
    expect(issues).toEqual([]);
    expect(R4_CODES.publicationStatus).toContain(questionnaire.status);
    for (const item of allItems(questionnaire.item as Item[])) {
      expect(R4_CODES.itemType, item.linkId).toContain(item.type);
      for (const when of item.enableWhen ?? []) expect(R4_CODES.enableWhenOperator).toContain(when.operator);
      if (item.enableBehavior) expect(R4_CODES.enableBehavior).toContain(item.enableBehavior);
      for (const ext of item.extension ?? [])
        if (ext.url === HL7.itemControl)
          for (const coding of ext.valueCodeableConcept!.coding) expect(R4_CODES.itemControl).toContain(coding.code);
    }
  });

  it("follows the template's identifier and schema version", () => {
    expect(questionnaire).toMatchObject({
      id: "anamnese-1a2b3c4d",
      url: `${API}/fhir/r4/Questionnaire/anamnese-1a2b3c4d`,
      version: "3",
      title: "Anamnese",
      description: "Vor dem Termin",
    });
  });

  it("maps types, options, lengths and conditions onto FHIR elements", () => {
    const items = questionnaire.item as (Item & FhirJson)[];
    const byId = (linkId: string) => items.find((i) => i.linkId === linkId)!;
    expect(byId("name")).toMatchObject({
      type: "string",
      required: true,
      maxLength: 80,
      item: [{ type: "display", text: "Wie auf der Karte" }],
    });
    expect(byId("allergies")).toMatchObject({
      type: "choice",
      repeats: true,
      answerOption: [
        { valueCoding: { code: "Pollen" } },
        { valueCoding: { code: "Nüsse" } },
        { valueCoding: { code: "andere" } },
      ],
    });
    expect(byId("insurance").answerOption).toEqual([
      { valueCoding: { code: "GKV" } },
      { valueCoding: { code: "pkv", display: "Privat" } },
    ]);
    expect(byId("scan")).toMatchObject({ type: "attachment" });
    expect(byId("packs")).toMatchObject({ enableWhen: [{ question: "smoker", operator: "=", answerBoolean: true }] });
    expect(byId("other")).toMatchObject({
      enableBehavior: "any",
      enableWhen: [
        { question: "allergies", operator: "=", answerCoding: { code: "andere" } },
        { question: "allergies", operator: "=", answerCoding: { code: "Nüsse" } },
      ],
    });
    expect(byId("tel-note").enableWhen).toEqual([{ question: "tel", operator: "exists", answerBoolean: true }]);
    expect(byId("mail-why").enableWhen).toEqual([{ question: "mail", operator: "exists", answerBoolean: false }]);
    expect(byId("since")).toMatchObject({
      enableBehavior: "all",
      enableWhen: [{ answerBoolean: true }, { answerDecimal: 2 }],
    });
    expect(byId("born-note").enableWhen).toEqual([
      { question: "born", operator: "=", answerDate: "2000-01-01" },
      { question: "sex", operator: "=", answerCoding: { code: "d" } },
      { question: "sex", operator: "=", answerCoding: { code: "f" } },
    ]);
  });

  it("round trips: template → Questionnaire → template keeps every field and condition", () => {
    const back = questionnaireToTemplate(questionnaire);
    expect(back.issues).toEqual([]);
    expect(back.template).toEqual({
      title: "Anamnese",
      description: "Vor dem Termin",
      status: "active",
      schema: { version: 3, fields: EVERY_FIELD },
    });
  });

  it("names a condition enableWhen cannot say, carries it in an extension, and still round trips", async () => {
    const fields: FormField[] = [
      EVERY_FIELD[10]!,
      EVERY_FIELD[11]!,
      {
        id: "x",
        type: "text",
        key: "x",
        label: "X",
        visibleWhen: {
          all: [
            { field: "smoker", operator: "equals", value: true },
            { field: "allergies", operator: "in", value: ["Pollen", "andere"] },
          ],
        },
      },
    ];
    const out = templateToQuestionnaire(template(fields), API);
    await expectValidFhir(out.questionnaire);
    expect(out.issues).toEqual([
      expect.objectContaining({ severity: "warning", code: "not-supported", expression: ["Questionnaire.item[2]"] }),
    ]);
    expect(out.questionnaire.contained).toEqual([
      { resourceType: "OperationOutcome", id: "export-issues", issue: out.issues },
    ]);
    const x = (out.questionnaire.item as Item[])[2]!;
    expect(x.enableWhen).toBeUndefined();
    expect(x.extension).toContainEqual({
      url: CLINSIGN.visibleWhen,
      valueString: JSON.stringify(fields[2]!.visibleWhen),
    });
    expect(questionnaireToTemplate(out.questionnaire).template?.schema.fields).toEqual(fields);
  });

  it("names a required display element instead of dropping it silently", () => {
    const out = templateToQuestionnaire(template([{ id: "h", type: "heading", label: "H", required: true }]), API);
    expect(out.issues).toEqual([
      expect.objectContaining({ severity: "warning", diagnostics: expect.stringContaining("required") }),
    ]);
  });
});

describe("Questionnaire → template (written elsewhere)", () => {
  it("imports the official PHQ-9 (LOINC 44249-1), naming the score and codes it does not keep", async () => {
    const phq9 = fixture("phq-9.json");
    await expectValidFhir(phq9);
    const { template: imported, issues } = questionnaireToTemplate(phq9);
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(imported!.title).toBe("PHQ-9 quick depression assessment panel");
    expect(imported!.status).toBe("active");
    const fields = imported!.schema.fields;
    // The panel's group becomes a heading; nine questions and the difficulty question follow.
    expect(fields.map((f) => f.type)).toEqual(["heading", ...Array(10).fill("select")]);
    expect(fields[1]).toMatchObject({
      key: "q__44249-1_44250-9",
      label: "Little interest or pleasure in doing things",
      options: [
        { value: "LA6568-5", label: "Not at all" },
        { value: "LA6569-3", label: "Several days" },
        { value: "LA6570-1", label: "More than half the days" },
        { value: "LA6571-9", label: "Nearly every day" },
      ],
    });
    const said = issues.map((i) => i.diagnostics).join("\n");
    expect(said).toContain('item "/44249-1/44261-6" is calculated');
    expect(said).toContain("code is not kept");
    expect(said).toContain("Questionnaire.copyright is not kept");
    expect(said).toContain("http://loinc.org of option");
    for (const issue of issues) {
      expect(R4_CODES.issueSeverity).toContain(issue.severity);
      expect(R4_CODES.issueType).toContain(issue.code);
    }
  });

  it("imports nested groups with enableWhen: each group's condition holds for its items", async () => {
    const nested = fixture("nested-groups.json");
    await expectValidFhir(nested);
    const { template: imported, issues } = questionnaireToTemplate(nested);
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(issues.map((i) => i.diagnostics)).toEqual([expect.stringContaining("integer becomes a number field")]);
    const smoker = { field: "smoker", operator: "equals", value: true };
    expect(imported!.schema.fields).toEqual([
      { id: "f1", key: "smoker", type: "checkbox", label: "Rauchen Sie?", required: true },
      { id: "f2", type: "heading", label: "Rauchen", visibleWhen: smoker },
      { id: "f3", key: "packs", type: "number", label: "Packungen pro Tag", visibleWhen: smoker },
      { id: "f4", type: "heading", label: "Seit wann", visibleWhen: smoker },
      {
        id: "f5",
        key: "since-date",
        type: "date",
        label: "Beginn",
        visibleWhen: { all: [smoker, { field: "packs", operator: "filled" }] },
      },
      {
        id: "f6",
        key: "allergies",
        type: "multiselect",
        label: "Allergien",
        options: [{ value: "pollen", label: "Pollen" }, { value: "nuts", label: "Nüsse" }, "andere"],
      },
      {
        id: "f7",
        key: "allergy-details",
        type: "textarea",
        label: "Welche anderen?",
        visibleWhen: { field: "allergies", operator: "equals", value: "andere" },
      },
    ]);
  });

  it("refuses what would change the form, naming each unsupported element", () => {
    const nested = fixture("nested-groups.json");
    const items = nested.item as FhirJson[];
    (items[1]!.item as FhirJson[])[0]!.enableWhen = [{ question: "smoker", operator: ">", answerInteger: 1 }];
    items[1]!.enableBehavior = "any";
    items[1]!.enableWhen = [
      { question: "smoker", operator: "=", answerBoolean: true },
      { question: "allergies", operator: "exists", answerBoolean: true },
    ];
    items.push(
      { linkId: "weight", type: "quantity", text: "Gewicht" },
      { linkId: "visits", type: "group", repeats: true, text: "Besuche", item: [{ linkId: "v", type: "date" }] },
    );
    const { template: imported, issues } = questionnaireToTemplate(nested);
    expect(imported).toBeUndefined();
    const errors = issues.filter((i) => i.severity === "error");
    expect(errors.map((e) => e.diagnostics)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('enableWhen operator ">" is not supported'),
        expect.stringContaining("item type quantity is not supported"),
        expect.stringContaining("repeating groups are not supported"),
        expect.stringContaining("combined with enableBehavior any cannot be expressed"),
      ]),
    );
    // The group's `any` also names "allergies", a later item: the template contract says so too.
    expect(errors.filter((e) => e.code === "invalid").map((e) => e.diagnostics)).toEqual([
      expect.stringContaining("comes later"),
      expect.stringContaining("comes later"),
    ]);
    expect(errors.every((e) => e.expression?.[0]?.startsWith("Questionnaire.item"))).toBe(true);
  });

  it("refuses a condition on a later item, naming the item", () => {
    const { issues } = questionnaireToTemplate({
      resourceType: "Questionnaire",
      status: "draft",
      item: [
        {
          linkId: "a",
          type: "string",
          text: "A",
          enableWhen: [{ question: "b", operator: "exists", answerBoolean: true }],
        },
        { linkId: "b", type: "string", text: "B" },
      ],
    });
    expect(issues.filter((i) => i.severity === "error")).toEqual([
      {
        severity: "error",
        code: "invalid",
        diagnostics: expect.stringMatching(/item "a".*comes later/),
        expression: ["Questionnaire.item[0]"],
      },
    ]);
  });

  it("refuses what is not a Questionnaire", () => {
    expect(questionnaireToTemplate({ resourceType: "Patient" }).issues).toEqual([
      expect.objectContaining({ severity: "error", code: "invalid" }),
    ]);
  });
});

describe("the form's settings in FHIR", () => {
  const template = (schema: Record<string, unknown>) =>
    ({
      id: "00000000-0000-4000-8000-000000000001",
      identifier: "settings",
      title: "Settings",
      description: null,
      status: "active",
      schema: {
        version: 1,
        fields: [
          {
            id: "1",
            key: "q",
            type: "radio",
            label: "Q",
            options: [
              { value: "0", label: "No", weight: 0 },
              { value: "1", label: "Yes", weight: 1 },
            ],
          },
        ],
        ...schema,
      },
      defaultLanguage: "de",
      translations: {},
      createdAt: "2026-11-28T00:00:00.000Z",
      updatedAt: "2026-11-28T00:00:00.000Z",
    }) as Template;

  it("carries 'scores hidden from the patient' and flagged answers there and back", () => {
    const settings = { scoresShownToPatient: false, flagged: [{ field: "q", minWeight: 1 }] };
    const { questionnaire } = templateToQuestionnaire(template(settings), "https://api.example.test");
    const back = questionnaireToTemplate(questionnaire);
    expect(back.issues).toEqual([]);
    expect(back.template!.schema).toMatchObject(settings);
    // A form without settings exports no extension for them.
    const plain = templateToQuestionnaire(template({}), "https://api.example.test").questionnaire;
    expect(plain.extension).toBeUndefined();
  });

  it("refuses a settings extension with anything else in it", () => {
    const { questionnaire } = templateToQuestionnaire(
      template({ scoresShownToPatient: false }),
      "https://api.example.test",
    );
    (questionnaire.extension as { valueString: string }[])[0]!.valueString = JSON.stringify({ admin: true });
    const back = questionnaireToTemplate(questionnaire);
    expect(back.template).toBeUndefined();
    expect(back.issues.map((i) => i.diagnostics)).toEqual([
      "the urn:clinsign:fhir:extension:form-settings extension is not the form's settings",
    ]);
  });
});

describe("scored questionnaires (PHQ-9, GAD-7) in FHIR", () => {
  /** A response as submissionToQuestionnaireResponse writes one: each chosen option a valueCoding. */
  const responseOf = (fields: FormField[], values: Record<string, string>) => ({
    resourceType: "QuestionnaireResponse",
    status: "completed",
    item: fields
      .filter((f) => f.key !== undefined && values[f.key] !== undefined)
      .map((f) => ({ linkId: f.key!, answer: [{ valueCoding: { code: values[f.key!] } }] })),
  });

  for (const entry of questionnaireLibrary) {
    it(`${entry.id}: options carry itemWeight, and FHIRPath weight() over the export gives the server's score`, async () => {
      const tpl = { ...template(entry.schema.fields), schema: entry.schema };
      const { questionnaire, issues } = templateToQuestionnaire(tpl, API);
      expect(issues).toEqual([]);
      await expectValidFhir(questionnaire);
      const scoreField = entry.schema.fields.find((f): f is ScoreField => f.type === "score")!;
      const scoreItem = (questionnaire.item as FhirJson[]).find((i) => i.linkId === scoreField.key)!;
      expect(scoreItem).toMatchObject({ type: "decimal", readOnly: true });
      const expression = (scoreItem.extension as { url: string; valueExpression?: { expression: string } }[]).find(
        (e) => e.url === HL7.calculatedExpression,
      )!.valueExpression!.expression;

      // Three answer patterns: all first options, all last options, and a mix.
      const sources = scoreField.sources.map((key) => entry.schema.fields.find((f) => f.key === key)!);
      const optionsOf = (f: FormField) =>
        ("options" in f ? f.options : []).map((o) => (typeof o === "string" ? o : o.value));
      for (const pick of [() => 0, (n: number) => n - 1, (_: number, i: number) => i % 4]) {
        const values = Object.fromEntries(
          sources.map((f, i) => [f.key!, optionsOf(f)[pick(optionsOf(f).length, i)]!] as const),
        );
        const server = evaluateForm(entry.schema, values).scores.get(scoreField.key)!.value!;
        // As an SDC form filler evaluates it: %resource is the response, %questionnaire the form.
        const response = responseOf(entry.schema.fields, values);
        const evaluated = fhirpath.evaluate(response, expression, { resource: response, questionnaire }, r4);
        expect(evaluated).toEqual([server.score]);
      }

      // And back: the copy imports with its weights, sources and bands.
      const back = questionnaireToTemplate(questionnaire);
      expect(back.issues).toEqual([]);
      expect(back.template!.schema).toEqual(entry.schema);
    });
  }
});
