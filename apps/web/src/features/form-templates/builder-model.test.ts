import type { Template } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import {
  builderReducer,
  createField,
  draftOf,
  initialBuilderState,
  isDirty,
  schemaProblems,
  updateInput,
  type BuilderState,
} from "./builder-model";

const template: Pick<Template, "title" | "description" | "status" | "defaultLanguage" | "translations" | "schema"> = {
  title: "Anamnese",
  description: null,
  status: "draft",
  defaultLanguage: "de",
  translations: {},
  schema: { version: 3, fields: [{ id: "f1", type: "text", key: "name", label: "Name" }] },
};

const loaded = (): BuilderState => builderReducer(initialBuilderState, { type: "loaded", draft: draftOf(template) });

describe("the builder's state", () => {
  it("loads a template as both draft and saved: clean, its keys kept as they are", () => {
    const state = loaded();
    expect(state.draft).toEqual({ ...template, description: "" });
    expect(isDirty(state)).toBe(false);
    expect(state.keyEdited.has("f1")).toBe(true);
  });

  it("an edit makes the draft dirty; a saved draft is clean again", () => {
    const edited = builderReducer(loaded(), { type: "edited", change: { title: "Anamnese 2" } });
    expect(isDirty(edited)).toBe(true);
    const saved = builderReducer(edited, {
      type: "saved",
      draft: edited.draft!,
      message: { tone: "success", text: "Saved" },
    });
    expect(isDirty(saved)).toBe(false);
    expect(saved.message).toEqual({ tone: "success", text: "Saved" });
  });

  it("adds a field with its editor open; its key follows the label until typed", () => {
    const field = createField("number", "Age", loaded().draft!.schema.fields);
    let state = builderReducer(loaded(), { type: "fieldAdded", field });
    expect(state.draft!.schema.fields.at(-1)).toEqual(field);
    expect(state.openField).toBe(field.id);
    expect(state.keyEdited.has(field.id)).toBe(false);
    state = builderReducer(state, { type: "keyEdited", fieldId: field.id });
    expect(state.keyEdited.has(field.id)).toBe(true);
  });

  it("an import replaces schema and languages but keeps the template's version and title", () => {
    const state = builderReducer(loaded(), {
      type: "imported",
      imported: {
        schema: { version: 9, fields: [{ id: "x", type: "email", key: "mail", label: "E-mail" }] },
        defaultLanguage: "en",
        translations: {},
      },
      message: { tone: "info", text: "Imported" },
    });
    expect(state.draft).toMatchObject({ title: "Anamnese", defaultLanguage: "en", schema: { version: 3 } });
    expect(state.keyEdited.has("x")).toBe(true);
    expect(updateInput("anamnese", state.draft!, state.saved).schema.version).toBe(4);
  });

  it("finds the schema's problems by field and attribute", () => {
    const problems = schemaProblems({ version: 1, fields: [{ id: "a", type: "text", key: "1bad", label: "A" }] });
    expect(problems.count).toBeGreaterThan(0);
    expect(Object.keys(problems.byField.get(0) ?? {})).toContain("key");
    expect(schemaProblems(undefined).count).toBe(0);
  });
});
