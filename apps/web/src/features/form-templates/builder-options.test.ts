import type { TemplateSchema } from "@clinsign/contracts";
import { templateSchema } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { addField, createField } from "./builder-fields";
import {
  addOptionSet,
  linkOptionSet,
  optionRows,
  optionSetUsers,
  optionsFromRows,
  removeOptionSet,
  updateOptionSet,
  withRowLabel,
} from "./builder-options";
import { conditionTargets, operatorsFor } from "./builder-references";

describe("the form builder's model", () => {
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
