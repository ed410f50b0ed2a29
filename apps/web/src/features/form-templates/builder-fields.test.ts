import type { FormField, TemplateSchema } from "@clinsign/contracts";
import { templateSchema } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import {
  addField,
  createField,
  DERIVED_KEY_LENGTH,
  duplicateField,
  keyFromLabel,
  moveField,
  removeField,
  replaceField,
  fieldCodeInput,
  uniqueKey,
  withFieldCode,
} from "./builder-fields";
import { dependents, nextBand } from "./builder-references";

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

  it("derives a short key of whole words from a long question", () => {
    const key = keyFromLabel(
      "Nehmen Sie regelmäßig Medikamente ein, die die Blutgerinnung beeinflussen (z. B. Marcumar, ASS)?",
    );
    expect(key).toBe("nehmenSieRegelmaessigMedikamente");
    expect(key.length).toBeLessThanOrEqual(DERIVED_KEY_LENGTH);
    expect(keyFromLabel("Donaudampfschifffahrtsgesellschaftskapitaenswitwenrente").length).toBe(DERIVED_KEY_LENGTH);
  });
});

describe("scores in the builder", () => {
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

describe("a score's code", () => {
  const score: Extract<FormField, { type: "score" }> = {
    id: "s",
    type: "score",
    key: "total",
    label: "Total",
    sources: ["smoker"],
  };

  it("starts in LOINC, is kept only with a code, and keeps the display as typed", () => {
    expect(fieldCodeInput(score)).toEqual({ system: "http://loinc.org", code: "", display: "" });
    const coded = withFieldCode(score, { code: " 44261-6 " });
    expect(coded.code).toEqual({ system: "http://loinc.org", code: "44261-6" });
    expect(withFieldCode(coded, { display: "PHQ-9 total " }).code).toEqual({
      system: "http://loinc.org",
      code: "44261-6",
      display: "PHQ-9 total ",
    });
    expect(withFieldCode(coded, { code: "" })).not.toHaveProperty("code");
    // What the builder writes passes the template schema's own check.
    expect(templateSchema.safeParse({ version: 1, fields: [...schema().fields, coded] }).success).toBe(true);
  });
});
