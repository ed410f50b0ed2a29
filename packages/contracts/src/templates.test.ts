import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createTemplateInput, listLimit, templateSchema } from "./index";

const field = (extra: Record<string, unknown>) => ({ id: "f", key: "k", label: "L", ...extra });

describe("template schema", () => {
  it("accepts every documented field type with its attributes", () => {
    const fields = [
      field({
        id: "1",
        key: "a",
        type: "text",
        minLength: 1,
        maxLength: 5,
        pattern: "^[a-z]+$",
        placeholder: "x",
        helpText: "y",
      }),
      field({ id: "2", key: "b", type: "textarea" }),
      field({ id: "3", key: "c", type: "email", required: true }),
      field({ id: "4", key: "d", type: "phone" }),
      field({ id: "5", key: "e", type: "number", min: 0, max: 10 }),
      field({ id: "6", key: "f", type: "date", min: "2020-01-01", max: "2030-01-01" }),
      field({ id: "7", key: "g", type: "select", options: ["a", { value: "b", label: "B" }] }),
      field({ id: "8", key: "h", type: "radio", options: ["a"] }),
      field({ id: "9", key: "i", type: "checkbox" }),
      field({ id: "10", key: "j", type: "multiselect", options: ["a", "b"] }),
      field({ id: "11", key: "l", type: "file", accept: "application/pdf,image/*", maxSizeMb: 10 }),
      field({ id: "12", key: "m", type: "signature" }),
      { id: "13", type: "heading", label: "Section" },
      { id: "14", type: "paragraph", label: "Text" },
    ];
    expect(templateSchema.safeParse({ version: 1, fields }).success).toBe(true);
  });

  it("refuses unknown attributes, bad patterns, inverted ranges and choices without options", () => {
    const bad = [
      field({ type: "text", onclick: "x" }),
      field({ type: "text", pattern: "([" }),
      field({ type: "text", pattern: "(a)\\1" }),
      field({ type: "text", pattern: "(?=a)a" }),
      field({ type: "text", pattern: "a(?!b)" }),
      field({ type: "text", pattern: "(?<=a)b" }),
      field({ type: "text", pattern: "(?<!a)b" }),
      field({ type: "number", min: 5, max: 1 }),
      field({ type: "select", options: [] }),
      field({ type: "file", maxSizeMb: 500 }),
      field({ type: "text", key: "1starts-with-digit" }),
    ];
    for (const f of bad)
      expect(templateSchema.safeParse({ version: 1, fields: [f] }).success, JSON.stringify(f)).toBe(false);
  });

  it("documents visibleWhen in the JSON schema the OpenAPI document is generated from", () => {
    const json = z.toJSONSchema(templateSchema, {
      io: "input",
      unrepresentable: "any",
      target: "draft-2020-12",
    }) as unknown as {
      properties: {
        fields: { items: { oneOf?: { properties: Record<string, { description?: string; anyOf?: unknown[] }> }[] } };
      };
    };
    const variants = json.properties.fields.items.oneOf ?? [];
    expect(variants).toHaveLength(15);
    for (const variant of variants) {
      expect(variant.properties.visibleWhen?.description).toMatch(/^Show the field only when/);
      expect(variant.properties.visibleWhen?.anyOf).toHaveLength(3);
    }
  });

  it("defaults status to draft and the schema to an empty one, and trims titles", () => {
    expect(createTemplateInput.parse({ title: "  Aufnahme  " })).toEqual({
      title: "Aufnahme",
      status: "draft",
      schema: { version: 1, fields: [] },
    });
    expect(createTemplateInput.safeParse({ title: "   " }).success).toBe(false);
  });
});

describe("list limits", () => {
  const limit = listLimit(50, 200);
  it("defaults, accepts digits as text, and refuses out-of-range or fractional values", () => {
    expect(limit.parse(undefined)).toBe(50);
    expect(limit.parse("200")).toBe(200);
    expect(limit.parse(7)).toBe(7);
    for (const bad of ["201", "0", "1.5", "-3", "ten", 201, 0.5])
      expect(limit.safeParse(bad).success, String(bad)).toBe(false);
  });
});
