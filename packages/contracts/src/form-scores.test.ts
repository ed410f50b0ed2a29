import { describe, expect, it } from "vitest";
import { visibleFieldKeys, withComputedScores } from "./form-conditions";
import { computeScore, type ScoreField } from "./form-scores";
import { questionnaireLibrary } from "./questionnaire-library";
import { templateSchema, type TemplateSchema } from "./templates";

/**
 * The published cut-offs, written out independently of the templates: [lowest score, band].
 * PHQ-9: Kroenke, Spitzer, Williams 2001; GAD-7: Spitzer, Kroenke, Williams, Löwe 2006.
 */
const CUTOFFS = {
  "phq-9-en": [
    [0, "Minimal"],
    [5, "Mild"],
    [10, "Moderate"],
    [15, "Moderately severe"],
    [20, "Severe"],
  ],
  "phq-9-de": [
    [0, "Minimal"],
    [5, "Leicht"],
    [10, "Mittelgradig"],
    [15, "Ausgeprägt"],
    [20, "Schwer"],
  ],
  "gad-7-en": [
    [0, "Minimal"],
    [5, "Mild"],
    [10, "Moderate"],
    [15, "Severe"],
  ],
  "gad-7-de": [
    [0, "Minimal"],
    [5, "Gering"],
    [10, "Mittelgradig"],
    [15, "Schwer"],
  ],
} as const satisfies Record<string, readonly (readonly [number, string])[]>;
const ITEMS = { phq9: 9, gad7: 7 } as const;

const expectedBand = (cutoffs: readonly (readonly [number, string])[], sum: number) =>
  cutoffs.reduce<string>((band, [from, label]) => (sum >= from ? label : band), "");

describe("PHQ-9 and GAD-7: every answer combination (golden)", () => {
  for (const entry of questionnaireLibrary) {
    const prefix = entry.id.startsWith("phq") ? "phq9" : "gad7";
    const items = ITEMS[prefix];
    const cutoffs = CUTOFFS[entry.id as keyof typeof CUTOFFS];

    it(`${entry.id}: all 4^${items} answer sets give the sum of the answers (0-3 each) and its published band`, () => {
      const schema = entry.schema;
      const field = schema.fields.find((f): f is ScoreField => f.type === "score")!;
      // The stored answer of "Not at all" … "Nearly every day" is "0" … "3", as the library writes them.
      const digits = new Array<number>(items).fill(0);
      const values: Record<string, unknown> = {};
      const combinations = 4 ** items;
      let mismatches = 0;
      for (let n = 0; n < combinations; n++) {
        let rest = n;
        let sum = 0;
        for (let i = 0; i < items; i++) {
          digits[i] = rest % 4;
          rest = Math.floor(rest / 4);
          sum += digits[i]!;
          values[`${prefix}_${i + 1}`] = String(digits[i]);
        }
        const { value } = computeScore(schema, field, values, visibleFieldKeys(schema, values));
        if (value?.score !== sum || value.band !== expectedBand(cutoffs, sum)) {
          mismatches++;
          if (mismatches === 1)
            expect({ n, value }).toEqual({ n, value: { score: sum, band: expectedBand(cutoffs, sum) } });
        }
      }
      expect(mismatches).toBe(0);
    });
  }
});

describe("the library's templates", () => {
  it("are valid template schemas with published option labels and a score over every item", () => {
    for (const entry of questionnaireLibrary) {
      expect(templateSchema.safeParse(entry.schema).error).toBeUndefined();
      expect(entry.description.length).toBeLessThanOrEqual(1000);
      expect(entry.description).toMatch(/Pfizer/);
    }
  });
});

const schema: TemplateSchema = {
  version: 1,
  fields: [
    {
      id: "1",
      key: "a",
      type: "radio",
      label: "A",
      options: [
        { value: "no", label: "No", weight: 0 },
        { value: "yes", label: "Yes", weight: 2 },
      ],
    },
    { id: "2", key: "b", type: "checkbox", label: "Show C" },
    {
      id: "3",
      key: "c",
      type: "multiselect",
      label: "C",
      options: [{ value: "x", label: "X", weight: 1.5 }, { value: "y", label: "Y", weight: 3 }, "z"],
      visibleWhen: { field: "b", operator: "equals", value: true },
    },
    {
      id: "4",
      key: "s",
      type: "score",
      label: "Score",
      sources: ["a", "c"],
      bands: [
        { min: 0, max: 1, label: "low" },
        { min: 2, max: 10, label: "high" },
      ],
    },
  ],
};
const scoreField = schema.fields[3] as ScoreField;

describe("computeScore", () => {
  it("is null until every visible source is answered; a hidden source does not count", () => {
    expect(computeScore(schema, scoreField, {}, visibleFieldKeys(schema, {}))).toEqual({
      value: null,
      answered: 0,
      total: 1,
    });
    expect(computeScore(schema, scoreField, { a: "yes" }, visibleFieldKeys(schema, { a: "yes" })).value).toEqual({
      score: 2,
      band: "high",
    });
    expect(
      computeScore(schema, scoreField, { a: "yes", b: true }, visibleFieldKeys(schema, { a: "yes", b: true })),
    ).toEqual({ value: null, answered: 1, total: 2 });
  });

  it("adds every chosen option of a multiselect; an option without weight adds 0; no band: null", () => {
    // 1.5 lies between the bands 0-1 and 2-10: no band.
    expect(
      computeScore(
        schema,
        scoreField,
        { a: "no", b: true, c: ["x", "z"] },
        visibleFieldKeys(schema, { a: "no", b: true, c: ["x", "z"] }),
      ).value,
    ).toEqual({
      score: 1.5,
      band: null,
    });
    expect(
      computeScore(
        schema,
        scoreField,
        { a: "yes", b: true, c: ["x", "y"] },
        visibleFieldKeys(schema, { a: "yes", b: true, c: ["x", "y"] }),
      ).value,
    ).toEqual({
      score: 6.5,
      band: "high",
    });
    const unbanded = { ...scoreField, bands: [] };
    expect(computeScore(schema, unbanded, { a: "yes" }, visibleFieldKeys(schema, { a: "yes" })).value).toEqual({
      score: 2,
      band: null,
    });
  });
});

describe("a score as a condition's source", () => {
  const safety: TemplateSchema = {
    ...schema,
    fields: [
      ...schema.fields,
      {
        id: "5",
        key: "safe",
        type: "radio",
        label: "Safe?",
        options: ["yes", "no"],
        visibleWhen: { field: "s", operator: "atLeast", value: 2 },
      },
    ],
  };
  it("shows a follow-up once the score reaches the threshold, and not while the score is incomplete", () => {
    expect(visibleFieldKeys(safety, { a: "yes" }).has("safe")).toBe(true);
    expect(visibleFieldKeys(safety, { a: "no" }).has("safe")).toBe(false);
    // C is shown and unanswered: no score yet, so neither at least 2 nor below.
    expect(visibleFieldKeys(safety, { a: "yes", b: true }).has("safe")).toBe(false);
    expect(visibleFieldKeys(safety, { a: "yes", b: true, c: ["z"] }).has("safe")).toBe(true);
  });
  it("ignores a score the client sent: only the computed one counts", () => {
    expect(visibleFieldKeys(safety, { a: "no", s: { score: 27, band: "high" } }).has("safe")).toBe(false);
    expect(withComputedScores(safety, { a: "no", s: 27, safe: "no" })).toEqual({
      a: "no",
      s: { score: 0, band: "low" },
      safe: "no",
    });
  });
});

describe("withComputedScores", () => {
  it("replaces a score the client sent with the computed one, and drops it when incomplete", () => {
    expect(withComputedScores(schema, { a: "no", s: { score: 99, band: "high" } })).toEqual({
      a: "no",
      s: { score: 0, band: "low" },
    });
    expect(withComputedScores(schema, { b: true, s: 27 })).toEqual({ b: true });
  });
});

describe("score fields in the template schema", () => {
  const base = schema.fields.slice(0, 3);
  const withScore = (score: Record<string, unknown>) =>
    templateSchema.safeParse({
      version: 1,
      fields: [...base, { id: "4", key: "s", label: "S", type: "score", ...score }],
    });
  const messages = (result: ReturnType<typeof withScore>) => result.error?.issues.map((i) => i.message) ?? [];

  it("accepts sources that are earlier choice fields and bands that do not overlap", () => {
    expect(withScore({ sources: ["a", "c"], bands: [{ min: 0, max: 3, label: "x" }] }).success).toBe(true);
  });

  it("refuses unknown, non-choice, repeated and later sources, overlapping or inverted bands", () => {
    expect(messages(withScore({ sources: ["nope"] }))).toEqual(['refers to unknown field "nope"']);
    expect(messages(withScore({ sources: ["b"] }))).toEqual([
      'refers to "b", which is not a select, radio or multiselect field',
    ]);
    expect(messages(withScore({ sources: ["a", "a"] }))).toEqual(['names "a" twice']);
    expect(messages(withScore({ sources: [] }))).toEqual(["needs 1 to 100 source fields"]);
    expect(
      messages(
        withScore({
          sources: ["a"],
          bands: [
            { min: 0, max: 5, label: "x" },
            { min: 5, max: 9, label: "y" },
            { min: 12, max: 10, label: "z" },
          ],
        }),
      ),
    ).toEqual(["overlaps band 1", "min must not exceed max"]);
    const later = templateSchema.safeParse({
      version: 1,
      fields: [{ id: "4", key: "s", label: "S", type: "score", sources: ["a"] }, ...base],
    });
    expect(messages(later)).toEqual(['refers to "a", which comes later; a score may only sum earlier fields']);
  });

  it("lets a score drive a condition by number, and refuses text values and weights that are not numbers", () => {
    const on = (visibleWhen: unknown) =>
      templateSchema.safeParse({
        version: 1,
        fields: [...schema.fields, { id: "5", key: "t", type: "text", label: "T", visibleWhen }],
      });
    expect(on({ field: "s", operator: "atLeast", value: 2 }).success).toBe(true);
    expect(on({ field: "s", operator: "between", value: [2, 10] }).success).toBe(true);
    expect(messages(on({ field: "s", operator: "equals", value: "high" }))).toEqual([
      'must be a number like the values of "s"',
    ]);
    const badWeight = templateSchema.safeParse({
      version: 1,
      fields: [{ id: "1", key: "a", type: "radio", label: "A", options: [{ value: "x", label: "X", weight: "1" }] }],
    });
    expect(badWeight.success).toBe(false);
  });
});
