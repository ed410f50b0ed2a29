import { describe, expect, it } from "vitest";
import {
  localizeTemplate,
  pruneTranslations,
  translatableTexts,
  translationProblems,
  type TranslatableTemplate,
} from "./form-languages";
import { evaluateForm } from "./form-conditions";
import { templateSchema, type TemplateSchema } from "./templates";

// Answer lists (issue 31, item 12) and translated score bands (item 6): a PHQ-style list shared
// by two questions, written and translated once.
const frequency = {
  id: "frequency",
  label: "Häufigkeit",
  options: [
    { value: "0", label: "Überhaupt nicht", weight: 0 },
    { value: "1", label: "An einzelnen Tagen", weight: 1 },
    { value: "2", label: "An mehr als der Hälfte der Tage", weight: 2 },
    { value: "3", label: "Beinahe jeden Tag", weight: 3 },
  ],
};
const written = {
  version: 1,
  optionSets: [frequency],
  fields: [
    { id: "1", key: "q1", type: "radio", label: "Wenig Interesse", optionSet: "frequency" },
    { id: "2", key: "q2", type: "radio", label: "Niedergeschlagen", optionSet: "frequency", options: ["stale"] },
    {
      id: "3",
      key: "total",
      type: "score",
      label: "Summe",
      sources: ["q1", "q2"],
      bands: [
        { min: 0, max: 2, label: "leicht" },
        { min: 3, max: 6, label: "schwer" },
      ],
    },
  ],
};

const parsed = (input: unknown) => templateSchema.safeParse(input);
const issues = (input: unknown) =>
  parsed(input).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? ["(valid)"];

describe("answer lists in the template schema", () => {
  it("copies the list's options into every field that names it, over whatever the field had", () => {
    const schema = parsed(written).data!;
    for (const field of schema.fields.slice(0, 2)) {
      expect(field).toMatchObject({ optionSet: "frequency", options: frequency.options });
    }
    // Weights come from the list: the score adds them.
    expect(evaluateForm(schema, { q1: "2", q2: "3" }).scores.get("total")?.value).toEqual({ score: 5, band: "schwer" });
  });

  it("refuses an unknown or duplicate list, and a choice field with neither options nor a list", () => {
    expect(
      issues({
        ...written,
        optionSets: [frequency, frequency],
        fields: [
          { id: "1", key: "a", type: "radio", label: "A", optionSet: "nope" },
          { id: "2", key: "b", type: "select", label: "B" },
        ],
      }),
    ).toEqual([
      'optionSets.1.id: duplicate answer list id "frequency"',
      'fields.0.optionSet: refers to unknown answer list "nope"',
      "fields.1.options: needs 1 to 500 options, or an answer list (optionSet)",
    ]);
  });

  it("checks a condition's value against the list's options", () => {
    const withCondition = (value: string) => ({
      ...written,
      fields: [
        written.fields[0],
        { id: "9", key: "follow", type: "text", label: "F", visibleWhen: { field: "q1", operator: "equals", value } },
      ],
    });
    expect(parsed(withCondition("3")).success).toBe(true);
    expect(issues(withCondition("stale"))).toEqual(['fields.1.visibleWhen.value: "stale" is not an option of "q1"']);
  });
});

describe("translating answer lists and bands once", () => {
  const schema = parsed(written).data! as TemplateSchema;
  const template: TranslatableTemplate = {
    title: "PHQ",
    description: null,
    schema,
    defaultLanguage: "de",
    translations: {
      tr: {
        fields: { q2: { options: { "3": "Neredeyse her gün (soru 2)" } }, total: { bands: { "0": "hafif" } } },
        optionSets: { frequency: { "0": "Hiç", "3": "Neredeyse her gün" } },
      },
    },
  };

  it("shows the list's translation in every field using it; a field's own wording wins", () => {
    const tr = localizeTemplate(template, "tr").schema;
    const labels = (i: number) =>
      (tr.fields[i] as { options: { value: string; label: string }[] }).options.map((o) => o.label);
    expect(labels(0)).toEqual(["Hiç", "An einzelnen Tagen", "An mehr als der Hälfte der Tage", "Neredeyse her gün"]);
    expect(labels(1)).toEqual([
      "Hiç",
      "An einzelnen Tagen",
      "An mehr als der Hälfte der Tage",
      "Neredeyse her gün (soru 2)",
    ]);
    // Values and weights never change with the language.
    expect((tr.fields[0] as { options: { weight: number }[] }).options.map((o) => o.weight)).toEqual([0, 1, 2, 3]);
  });

  it("translates band labels, the default language where a band has none", () => {
    const total = localizeTemplate(template, "tr").schema.fields[2] as { bands: { label: string }[] };
    expect(total.bands.map((b) => b.label)).toEqual(["hafif", "schwer"]);
    // Scores in the patient's language read the translated band.
    expect(
      evaluateForm(localizeTemplate(template, "tr").schema, { q1: "0", q2: "1" }).scores.get("total")?.value,
    ).toEqual({ score: 1, band: "hafif" });
  });

  it("lists each list option once for translators, and the bands, but not the options a field takes from a list", () => {
    const ids = translatableTexts(template).map((t) => t.id);
    expect(ids).toEqual([
      "title",
      "fields.q1.label",
      "fields.q2.label",
      "fields.total.label",
      "fields.total.bands.0",
      "fields.total.bands.1",
      "optionSets.frequency.0",
      "optionSets.frequency.1",
      "optionSets.frequency.2",
      "optionSets.frequency.3",
    ]);
  });

  it("names unknown lists, list options and bands, and prunes them when the schema changes", () => {
    const wrong = {
      tr: {
        fields: { total: { bands: { "5": "x" } } },
        optionSets: { nope: { "0": "x" }, frequency: { "9": "x" } },
      },
    };
    expect(translationProblems(schema, wrong, "de").map((p) => `${p.path.join(".")}: ${p.message}`)).toEqual([
      'tr.optionSets.nope: unknown answer list "nope"',
      'tr.optionSets.frequency.9: "9" is not an option of answer list "frequency"',
      'tr.fields.total.bands.5: "total" has no band 5',
    ]);
    const pruned = pruneTranslations(schema, wrong);
    expect(pruned.tr).toEqual({ fields: { total: { bands: {} } }, optionSets: { frequency: {} } });
  });
});
