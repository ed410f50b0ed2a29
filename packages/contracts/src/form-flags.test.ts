import { describe, expect, it } from "vitest";
import {
  computeFlags,
  flagProblems,
  flagRuleOf,
  renameFlagRules,
  scoresShownToPatient,
  setFlagRule,
} from "./form-flags";
import { questionnaireLibrary } from "./questionnaire-library";
import { templateSchema, type TemplateSchema } from "./templates";

const weighted = ["0", "1", "2", "3"].map((value, weight) => ({ value, label: `answer ${value}`, weight }));

const schema: TemplateSchema = {
  version: 1,
  fields: [
    { id: "a", key: "mood", type: "radio", label: "Mood", options: weighted },
    { id: "b", key: "harm", type: "select", label: "Self-harm", options: weighted },
    {
      id: "c",
      key: "symptoms",
      type: "multiselect",
      label: "Symptoms",
      options: [{ value: "cough", label: "Cough", weight: 0 }, { value: "fever", label: "Fever", weight: 2 }, "rash"],
    },
    { id: "d", key: "note", type: "text", label: "Note" },
    { id: "e", key: "plain", type: "radio", label: "Plain", options: ["yes", "no"] },
  ],
  flagged: [
    { field: "harm", minWeight: 1 },
    { field: "symptoms", minWeight: 2 },
  ],
};

describe("computeFlags", () => {
  it("flags a chosen option whose weight reaches the rule's minimum, in the order of the rules", () => {
    expect(computeFlags(schema, { mood: "3", harm: "0", symptoms: ["cough"] })).toEqual([]);
    expect(computeFlags(schema, { harm: "1" })).toEqual(["harm"]);
    expect(computeFlags(schema, { harm: "3", symptoms: ["cough", "fever"] })).toEqual(["harm", "symptoms"]);
    expect(computeFlags(schema, { symptoms: ["fever"], harm: "2" })).toEqual(["harm", "symptoms"]);
  });

  it("ignores unanswered fields, unknown values, options without a weight and fields that are not flagged", () => {
    expect(computeFlags(schema, {})).toEqual([]);
    expect(computeFlags(schema, { harm: "9", symptoms: ["rash"] })).toEqual([]);
    expect(computeFlags(schema, { harm: null, symptoms: [] })).toEqual([]);
    // "mood" at its highest weight: not a flagged field.
    expect(computeFlags(schema, { mood: "3" })).toEqual([]);
    expect(computeFlags({ ...schema, flagged: undefined }, { harm: "3" })).toEqual([]);
  });

  it("flags PHQ-9 item 9 from 'Several days' on, in both library languages, whatever the total", () => {
    for (const id of ["phq-9-en", "phq-9-de"]) {
      const phq9 = questionnaireLibrary.find((entry) => entry.id === id)!.schema;
      const answers = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`phq9_${i + 1}`, "0"]));
      expect(computeFlags(phq9, answers)).toEqual([]);
      for (const answer of ["1", "2", "3"])
        expect(computeFlags(phq9, { ...answers, phq9_9: answer })).toEqual(["phq9_9"]);
      // Every other item at its highest: a severe total, but no flag.
      expect(
        computeFlags(phq9, { ...Object.fromEntries(Object.keys(answers).map((k) => [k, "3"])), phq9_9: "0" }),
      ).toEqual([]);
    }
    const gad7 = questionnaireLibrary.find((entry) => entry.id === "gad-7-en")!.schema;
    expect(gad7.flagged).toBeUndefined();
  });
});

describe("flagProblems", () => {
  it("accepts the library's templates and a correct list", () => {
    expect(flagProblems(schema)).toEqual([]);
    for (const entry of questionnaireLibrary) expect(flagProblems(entry.schema)).toEqual([]);
  });

  it("names each wrong entry by its path", () => {
    const wrong: TemplateSchema = {
      ...schema,
      flagged: [
        { field: "nope", minWeight: 1 },
        { field: "note", minWeight: 1 },
        { field: "harm", minWeight: 1 },
        { field: "harm", minWeight: 2 },
        { field: "mood", minWeight: 4 },
        { field: "plain", minWeight: 0 },
      ],
    };
    expect(flagProblems(wrong)).toEqual([
      { path: ["flagged", 0, "field"], message: 'no field has the key "nope"' },
      {
        path: ["flagged", 1, "field"],
        message: '"note" is a text field; only select, radio and multiselect answers can be flagged',
      },
      { path: ["flagged", 3, "field"], message: '"harm" is listed twice' },
      {
        path: ["flagged", 4, "minWeight"],
        message: 'no option of "mood" has a weight of 4 or more, so it never flags',
      },
      {
        path: ["flagged", 5, "minWeight"],
        message: 'no option of "plain" has a weight of 0 or more, so it never flags',
      },
    ]);
  });
});

describe("the schema's own checks", () => {
  it("takes flagged and scoresShownToPatient, and refuses wrong shapes", () => {
    expect(templateSchema.safeParse({ ...schema, scoresShownToPatient: false }).success).toBe(true);
    expect(templateSchema.safeParse({ ...schema, scoresShownToPatient: "no" }).success).toBe(false);
    expect(templateSchema.safeParse({ ...schema, flagged: [{ field: "harm" }] }).success).toBe(false);
    expect(templateSchema.safeParse({ ...schema, flagged: [{ field: "harm", minWeight: 1, x: 1 }] }).success).toBe(
      false,
    );
    const many = Array.from({ length: 51 }, () => ({ field: "harm", minWeight: 1 }));
    expect(templateSchema.safeParse({ ...schema, flagged: many }).success).toBe(false);
  });

  it("shows scores to the patient unless the template says false", () => {
    expect(scoresShownToPatient(schema)).toBe(true);
    expect(scoresShownToPatient({ scoresShownToPatient: true })).toBe(true);
    expect(scoresShownToPatient({ scoresShownToPatient: false })).toBe(false);
  });
});

describe("the builder's edits of flag rules", () => {
  it("sets, changes and removes one field's rule; an empty list leaves no property", () => {
    const bare: TemplateSchema = { version: 1, fields: schema.fields };
    const one = setFlagRule(bare, "harm", 1);
    expect(one.flagged).toEqual([{ field: "harm", minWeight: 1 }]);
    expect(flagRuleOf(one, "harm")).toEqual({ field: "harm", minWeight: 1 });
    const two = setFlagRule(setFlagRule(one, "symptoms", 2), "harm", 3);
    expect(two.flagged).toEqual([
      { field: "harm", minWeight: 3 },
      { field: "symptoms", minWeight: 2 },
    ]);
    const none = setFlagRule(setFlagRule(two, "harm", null), "symptoms", null);
    expect("flagged" in none).toBe(false);
    expect(flagRuleOf(none, "harm")).toBeUndefined();
  });

  it("follows a renamed key and drops the rule of a removed field", () => {
    const renamed = renameFlagRules(schema, "harm", "selfHarm");
    expect(renamed.flagged).toEqual([
      { field: "selfHarm", minWeight: 1 },
      { field: "symptoms", minWeight: 2 },
    ]);
    expect(renameFlagRules(schema, "symptoms", undefined).flagged).toEqual([{ field: "harm", minWeight: 1 }]);
    expect(
      "flagged" in renameFlagRules({ ...schema, flagged: [{ field: "harm", minWeight: 1 }] }, "harm", undefined),
    ).toBe(false);
    expect(renameFlagRules(schema, "mood", "x")).toBe(schema);
  });
});
