import type { TemplateSchema } from "@clinsign/contracts";
import { templateSchema, translatableTexts } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import {
  addableLanguages,
  addField,
  addOptionSet,
  conditionTargets,
  linkOptionSet,
  operatorsFor,
  optionSetUsers,
  removeOptionSet,
  updateOptionSet,
  addLanguage,
  coverageByLanguage,
  createField,
  removeLanguage,
  setTranslatedText,
  translationLanguages,
  DERIVED_KEY_LENGTH,
  dependents,
  duplicateField,
  keyFromLabel,
  moveField,
  nextBand,
  optionRows,
  optionsFromRows,
  readAccept,
  removeField,
  replaceField,
  withRowLabel,
  uniqueKey,
  writeAccept,
} from "./builder-model";

const schema = (): TemplateSchema => ({
  version: 1,
  fields: [
    { id: "a", type: "radio", key: "smoker", label: "Do you smoke?", options: ["yes", "no"] },
    {
      id: "b",
      type: "number",
      key: "perDay",
      label: "Per day",
      visibleWhen: { field: "smoker", operator: "equals", value: "yes" },
    },
    { id: "c", type: "text", key: "name", label: "Name" },
  ],
});

describe("the form builder's model", () => {
  it("derives keys from labels (umlauts spelled out) and keeps them unique", () => {
    expect(keyFromLabel("Größe in cm")).toBe("groesseInCm");
    expect(keyFromLabel("  1. Allergies?  ")).toBe("allergies");
    expect(keyFromLabel("???")).toBe("field");
    expect(uniqueKey("name", schema().fields)).toBe("name2");
    expect(uniqueKey("name", schema().fields, "c")).toBe("name");
  });

  it("creates fields the template schema accepts, for every type", () => {
    let s: TemplateSchema = { version: 1, fields: [] };
    for (const type of [
      "text",
      "textarea",
      "email",
      "phone",
      "number",
      "date",
      "select",
      "radio",
      "checkbox",
      "multiselect",
      "file",
      "signature",
      "heading",
      "paragraph",
    ] as const) {
      s = addField(s, createField(type, `My ${type}`, s.fields));
    }
    expect(templateSchema.safeParse(s).success).toBe(true);
    expect(new Set(s.fields.map((f) => f.id)).size).toBe(14);
  });

  it("moves, duplicates and removes fields; removing one drops the conditions on it", () => {
    expect(moveField(schema(), 2, 0).fields.map((f) => f.id)).toEqual(["c", "a", "b"]);
    expect(moveField(schema(), 0, 99).fields.map((f) => f.id)).toEqual(["b", "c", "a"]);
    const copied = duplicateField(schema(), 2);
    expect(copied.fields[3]).toMatchObject({ key: "name2", label: "Name" });
    expect(copied.fields[3]!.id).not.toBe("c");
    const removed = removeField(schema(), 0);
    expect(removed.fields.map((f) => f.id)).toEqual(["b", "c"]);
    expect(removed.fields[0]!.visibleWhen).toBeUndefined();
  });

  it("renaming a key carries the conditions that name it along, and shows who depends on a field", () => {
    const s = replaceField(schema(), 0, { ...schema().fields[0]!, key: "smokes" } as TemplateSchema["fields"][number]);
    expect(s.fields[1]!.visibleWhen).toEqual({ field: "smokes", operator: "equals", value: "yes" });
    expect(dependents(s, "smokes").map((f) => f.id)).toEqual(["b"]);
    expect(dependents(s, "name")).toEqual([]);
  });

  it("edits options as rows: a blank row is dropped, a value differing from the label is kept", () => {
    const rows = [
      { label: "yes", value: "yes", weight: "" },
      { label: " Nein ", value: " no ", weight: "" },
      { label: "", value: "", weight: "" },
      { label: "Gesetzlich", value: "", weight: "" },
    ];
    expect(optionsFromRows(rows)).toEqual(["yes", { value: "no", label: "Nein" }, "Gesetzlich"]);
    expect(optionRows(["yes", { value: "no", label: "Nein" }])).toEqual([
      { label: "yes", value: "yes", weight: "" },
      { label: "Nein", value: "no", weight: "" },
    ]);
  });

  it("lets a row's value follow its label until the value is typed", () => {
    const typed = withRowLabel({ label: "Ja", value: "Ja", weight: "" }, "Ja, täglich");
    expect(typed.value).toBe("Ja, täglich");
    expect(withRowLabel({ label: "Ja", value: "yes", weight: "" }, "Ja, täglich").value).toBe("yes");
  });

  it("derives a short key of whole words from a long question", () => {
    const key = keyFromLabel(
      "Nehmen Sie regelmäßig Medikamente ein, die die Blutgerinnung beeinflussen (z. B. Marcumar, ASS)?",
    );
    expect(key).toBe("nehmenSieRegelmaessigMedikamente");
    expect(key.length).toBeLessThanOrEqual(DERIVED_KEY_LENGTH);
    expect(keyFromLabel("Donaudampfschifffahrtsgesellschaftskapitaenswitwenrente").length).toBe(DERIVED_KEY_LENGTH);
  });

  it("turns ticked file types into an accept list the schema takes, and reads it back", () => {
    const accept = writeAccept(new Set(["pdf", "images"]), " .ODT ");
    expect(accept).toBe("application/pdf,.pdf,image/*,.odt");
    expect(
      templateSchema.safeParse({ version: 1, fields: [{ id: "f", type: "file", key: "f", label: "F", accept }] })
        .success,
    ).toBe(true);
    expect(readAccept(accept)).toEqual({ choices: new Set(["pdf", "images"]), other: ".odt" });
    expect(readAccept(".docx")).toEqual({ choices: new Set(["word"]), other: "" });
    expect(writeAccept(new Set(), "")).toBeUndefined();
  });
});

describe("scores in the builder", () => {
  it("reads and writes option weights (“1,5” too); a weight that is not a number is left out", () => {
    const options = optionsFromRows([
      { label: "Not at all", value: "0", weight: "0" },
      { label: "Several days", value: "1", weight: "1,5" },
      { label: "plain", value: "plain", weight: "" },
      { label: "B", value: "A", weight: "x" },
    ]);
    expect(options).toEqual([
      { value: "0", label: "Not at all", weight: 0 },
      { value: "1", label: "Several days", weight: 1.5 },
      "plain",
      { value: "A", label: "B" },
    ]);
    expect(optionRows(options).map((row) => row.weight)).toEqual(["0", "1.5", "", ""]);
  });

  it("a new score sums the choice fields above; removing or renaming a source follows", () => {
    let s = schema();
    const score = createField("score", "Total", s.fields);
    expect(score).toMatchObject({ type: "score", key: "total", sources: ["smoker"] });
    s = addField(s, score);
    expect(templateSchema.safeParse(s).success).toBe(true);
    s = replaceField(s, 0, { ...s.fields[0]!, key: "smokes" } as (typeof s.fields)[number]);
    expect(s.fields.at(-1)).toMatchObject({ sources: ["smokes"] });
    s = removeField(s, 0);
    expect(s.fields.at(-1)).toMatchObject({ sources: [] });
  });

  it("suggests the next band above the last", () => {
    expect(nextBand([])).toEqual({ min: 0, max: 4, label: "" });
    expect(nextBand([{ min: 0, max: 4, label: "minimal" }])).toEqual({ min: 5, max: 9, label: "" });
  });
});

describe("translations", () => {
  const schema: TemplateSchema = {
    version: 1,
    fields: [
      { id: "f1", key: "name", type: "text", label: "Name", helpText: "Wie im Ausweis" },
      { id: "f2", key: "insurance", type: "radio", label: "Versicherung", options: ["gkv", "privat"] },
    ],
  };
  const template = { title: "Anamnese", description: null, schema };
  const texts = translatableTexts(template);
  const byId = (id: string) => texts.find((text) => text.id === id)!;

  it("adds a language, counts what is translated and lists what is missing", () => {
    let translations = addLanguage({}, "tr");
    expect(translationLanguages(translations)).toEqual(["tr"]);
    expect(addableLanguages("de", translations)).toEqual(["en", "ar", "ru", "uk", "pl"]);
    expect(coverageByLanguage(template, translations)[0]).toMatchObject({ language: "tr", total: 6, translated: 0 });
    translations = setTranslatedText(translations, "tr", byId("title"), "Anamnez");
    translations = setTranslatedText(translations, "tr", byId("fields.name.label"), "Adınız");
    translations = setTranslatedText(translations, "tr", byId("fields.insurance.options.gkv"), "Devlet");
    expect(translations.tr).toEqual({
      title: "Anamnez",
      fields: { name: { label: "Adınız" }, insurance: { options: { gkv: "Devlet" } } },
    });
    const [tr] = coverageByLanguage(template, translations);
    expect([tr!.translated, tr!.total]).toEqual([3, 6]);
    expect(tr!.missing.map((text) => text.id)).toEqual([
      "fields.name.help",
      "fields.insurance.label",
      "fields.insurance.options.privat",
    ]);
  });

  it("clearing a text removes it (missing again), and removing a language drops all of it", () => {
    let translations = setTranslatedText(addLanguage({}, "ar"), "ar", byId("fields.insurance.options.gkv"), "حكومي");
    translations = setTranslatedText(translations, "ar", byId("fields.insurance.options.gkv"), "");
    expect(translations.ar).toEqual({ fields: {} });
    expect(coverageByLanguage(template, translations)[0]!.translated).toBe(0);
    expect(removeLanguage(translations, "ar")).toEqual({});
  });
});

describe("answer lists in the builder", () => {
  const phq = (): TemplateSchema => ({
    version: 1,
    fields: [
      {
        id: "a",
        key: "q1",
        type: "radio",
        label: "Interest",
        options: [
          { value: "0", label: "Never", weight: 0 },
          { value: "1", label: "Often", weight: 1 },
        ],
      },
      { id: "b", key: "q2", type: "radio", label: "Mood", options: ["x"] },
      {
        id: "c",
        key: "follow",
        type: "text",
        label: "Why?",
        visibleWhen: { field: "q2", operator: "equals", value: "1" },
      },
    ],
  });

  it("turns a question's options into a list, links another question, and both follow a change", () => {
    const first = phq().fields[0]!;
    const { schema: made, id } = addOptionSet(phq(), "Frequency", "options" in first ? first.options : [], 0);
    expect(id).toBe("frequency");
    let s = linkOptionSet(made, 1, id);
    expect(optionSetUsers(s, id).map((f) => f.key)).toEqual(["q1", "q2"]);
    expect(templateSchema.safeParse(s).success).toBe(true);
    s = updateOptionSet(s, id, {
      options: [
        { value: "0", label: "Nie", weight: 0 },
        { value: "1", label: "Oft", weight: 2 },
      ],
    });
    for (const field of s.fields.slice(0, 2))
      expect((field as { options: { label: string }[] }).options.map((o) => o.label)).toEqual(["Nie", "Oft"]);
  });

  it("removing a list leaves its questions with the options as their own", () => {
    const { schema: made, id } = addOptionSet(phq(), "Frequency", ["0", "1"], 1);
    const s = removeOptionSet(made, id);
    expect(s.optionSets).toBeUndefined();
    expect(s.fields[1]).toEqual({ id: "b", key: "q2", type: "radio", label: "Mood", options: ["0", "1"] });
    expect(templateSchema.safeParse(s).success).toBe(true);
  });

  it("offers operators that fit the field, and scores as condition sources", () => {
    expect(operatorsFor("score")).toEqual(["atLeast", "atMost", "between", "equals", "notEquals", "filled", "empty"]);
    expect(operatorsFor("radio")).toContain("in");
    expect(operatorsFor("radio")).not.toContain("atLeast");
    expect(operatorsFor("file")).toEqual(["filled", "empty"]);
    const withScore = addField(phq(), createField("score", "Total", phq().fields));
    expect(conditionTargets(withScore.fields, withScore.fields.length).map((f) => f.key)).toContain("total");
  });
});

describe("translating answer lists and bands in the builder", () => {
  it("writes an answer list's option and a band under their own entries, and removes them when emptied", () => {
    const schema: TemplateSchema = {
      version: 1,
      optionSets: [{ id: "freq", label: "Frequency", options: ["0", "1"] }],
      fields: [
        { id: "a", key: "q1", type: "radio", label: "Q1", optionSet: "freq", options: ["0", "1"] },
        {
          id: "s",
          key: "total",
          type: "score",
          label: "Total",
          sources: ["q1"],
          bands: [{ min: 0, max: 1, label: "low" }],
        },
      ],
    };
    const texts = translatableTexts({ title: "T", description: null, schema });
    const setOption = texts.find((t) => t.id === "optionSets.freq.1")!;
    const band = texts.find((t) => t.id === "fields.total.bands.0")!;
    let tr = setTranslatedText({}, "tr", setOption, "Bazen");
    tr = setTranslatedText(tr, "tr", band, "düşük");
    expect(tr.tr).toEqual({ fields: { total: { bands: { "0": "düşük" } } }, optionSets: { freq: { "1": "Bazen" } } });
    tr = setTranslatedText(tr, "tr", setOption, "");
    expect(tr.tr).toEqual({ fields: { total: { bands: { "0": "düşük" } } } });
  });
});

describe("'needs attention' rules follow their field", () => {
  it("a renamed key carries its rule along; a removed field takes its rule with it", () => {
    const base: TemplateSchema = {
      version: 1,
      fields: [
        {
          id: "a",
          key: "q9",
          type: "radio",
          label: "Q9",
          options: [
            { value: "0", label: "No", weight: 0 },
            { value: "1", label: "Yes", weight: 1 },
          ],
        },
        { id: "b", key: "note", type: "text", label: "Note" },
      ],
      flagged: [{ field: "q9", minWeight: 1 }],
    };
    const renamed = replaceField(base, 0, { ...base.fields[0]!, key: "item9" } as TemplateSchema["fields"][number]);
    expect(renamed.flagged).toEqual([{ field: "item9", minWeight: 1 }]);
    expect(templateSchema.safeParse(renamed).success).toBe(true);
    const removed = removeField(renamed, 0);
    expect(removed.flagged ?? []).toEqual([]);
    expect(templateSchema.safeParse(removed).success).toBe(true);
  });
});
