import type { TemplateSchema } from "@clinsign/contracts";
import { templateSchema, translatableTexts } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import {
  addableLanguages,
  addField,
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
  optionsToText,
  readAccept,
  removeField,
  replaceField,
  textToOptions,
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

  it("edits options one per line, `value | label` when they differ", () => {
    const options = textToOptions("yes\n no | Nein \n\n|\ngkv | Gesetzlich");
    expect(options).toEqual(["yes", { value: "no", label: "Nein" }, { value: "gkv", label: "Gesetzlich" }]);
    expect(optionsToText(options)).toBe("yes\nno | Nein\ngkv | Gesetzlich");
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
  it("reads and writes option weights as “value | label | weight”", () => {
    const options = textToOptions("0 | Not at all | 0\n1 | Several days | 1,5\nplain\nA | B | C");
    expect(options).toEqual([
      { value: "0", label: "Not at all", weight: 0 },
      { value: "1", label: "Several days", weight: 1.5 },
      "plain",
      { value: "A", label: "B | C" },
    ]);
    expect(optionsToText(options)).toBe("0 | Not at all | 0\n1 | Several days | 1.5\nplain\nA | B | C");
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
