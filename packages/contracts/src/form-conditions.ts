/**
 * Which fields of a form are shown (`visibleWhen`), shared by the server and the form renderer.
 * Tiny and dependency-free: patient pages need it for their first render, while the validators
 * (form-validation.ts, with the phone number rules) load on the first interaction.
 */
import type { FieldCondition, FormField, TemplateSchema } from "./templates";

/** No answer: absent, null, empty or blank text, an empty list. */
export function isBlankValue(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === "string" && value.trim() === "") ||
    (Array.isArray(value) && value.length === 0)
  );
}

/**
 * Does one condition hold? `value` is the referenced field's value, undefined when that field is
 * hidden. A multiselect's list: equals means "contains", in means "contains any". An unchecked
 * checkbox (false) is empty, and an unanswered one is unchecked: only checkbox conditions compare
 * with booleans (the template schema sees to it), so `equals false` holds for both.
 */
function conditionHolds(condition: FieldCondition, answer: unknown): boolean {
  const expected = condition.value;
  const value = typeof expected === "boolean" && isBlankValue(answer) ? false : answer;
  const isEmpty = isBlankValue(value) || value === false;
  switch (condition.operator) {
    case "filled":
      return !isEmpty;
    case "empty":
      return isEmpty;
    case "equals":
      return Array.isArray(value) ? value.includes(expected) : value === expected;
    case "notEquals":
      return Array.isArray(value) ? !value.includes(expected) : value !== expected;
    case "in": {
      const list: unknown[] = Array.isArray(expected) ? expected : [expected];
      return Array.isArray(value) ? value.some((v) => list.includes(v)) : list.includes(value);
    }
  }
}

/**
 * Is this field shown? `visible` holds the keys of the visible fields before it (see
 * visibleFieldKeys); a referenced field that is hidden counts as empty.
 */
export function isFieldVisible(field: FormField, values: Record<string, unknown>, visible: Set<string>): boolean {
  const when = field.visibleWhen;
  if (!when) return true;
  const valueOf = (c: FieldCondition) => (visible.has(c.field) ? values[c.field] : undefined);
  if ("all" in when) return when.all.every((c) => conditionHolds(c, valueOf(c)));
  if ("any" in when) return when.any.some((c) => conditionHolds(c, valueOf(c)));
  return conditionHolds(when, valueOf(when));
}

/**
 * Keys of the visible fields, deciding in schema order. Conditions name only earlier fields (the
 * template schema refuses anything else), so one pass settles every field.
 */
export function visibleFieldKeys(schema: TemplateSchema, values: Record<string, unknown>): Set<string> {
  const visible = new Set<string>();
  for (const field of schema.fields) {
    if (field.key !== undefined && isFieldVisible(field, values, visible)) visible.add(field.key);
  }
  return visible;
}

/** The fields shown, in order: display elements (heading, paragraph) follow their conditions too. */
export function visibleFields(schema: TemplateSchema, values: Record<string, unknown>): FormField[] {
  const visible = visibleFieldKeys(schema, values);
  return schema.fields.filter((field) =>
    field.key !== undefined ? visible.has(field.key) : isFieldVisible(field, values, visible),
  );
}

export const takesValue = (field: FormField): field is FormField & { key: string } =>
  field.key !== undefined && field.type !== "heading" && field.type !== "paragraph";

/** What gets stored: the values of visible fields only (hidden and display-only keys removed). */
export function visibleValues(schema: TemplateSchema, values: Record<string, unknown>): Record<string, unknown> {
  const valueKeys = new Set(schema.fields.filter(takesValue).map((field) => field.key));
  const visible = visibleFieldKeys(schema, values);
  return Object.fromEntries(Object.entries(values).filter(([key]) => valueKeys.has(key) && visible.has(key)));
}
