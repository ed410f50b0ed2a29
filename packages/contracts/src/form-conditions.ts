/**
 * Which fields of a form are shown (`visibleWhen`) and what its scores are, in one pass shared by
 * the server and the form renderer. Tiny and dependency-free: patient pages need it for their
 * first render, while the validators (form-validation.ts, with the phone number rules) load on the
 * first interaction.
 */
import { computeScore, type ScoreState } from "./form-scores";
import { isBlankValue } from "./form-values";
import type { FieldCondition, FormField, TemplateSchema } from "./template-schema";

export { isBlankValue };

/**
 * Does one condition hold? `answer` is the referenced field's value (a score's sum), undefined
 * when that field is hidden or (a score) not complete. An unanswered field is neither equal nor
 * unequal to anything, so "is not X" does not show a follow-up on a blank form. A multiselect's
 * list: equals means "contains", in means "contains any". An unchecked checkbox (false) is empty,
 * and an unanswered one is unchecked: only checkbox conditions compare with booleans (the
 * template schema sees to it), so `equals false` holds for both.
 */
function conditionHolds(condition: FieldCondition, answer: unknown): boolean {
  const expected = condition.value;
  const value = typeof expected === "boolean" && isBlankValue(answer) ? false : answer;
  const isEmpty = isBlankValue(value) || value === false;
  if (condition.operator === "filled") return !isEmpty;
  if (condition.operator === "empty") return isEmpty;
  if (isBlankValue(value)) return false;
  switch (condition.operator) {
    case "equals":
      return Array.isArray(value) ? value.includes(expected) : value === expected;
    case "notEquals":
      return Array.isArray(value) ? !value.includes(expected) : value !== expected;
    case "in": {
      const list: unknown[] = Array.isArray(expected) ? expected : [expected];
      return Array.isArray(value) ? value.some((v) => list.includes(v)) : list.includes(value);
    }
    case "atLeast":
      return typeof value === "number" && value >= (expected as number);
    case "atMost":
      return typeof value === "number" && value <= (expected as number);
    case "between": {
      const [min, max] = expected as number[];
      return typeof value === "number" && value >= min! && value <= max!;
    }
  }
}

/** A form's state for some answers: which fields are shown, and each shown score's state. */
export interface FormState {
  visible: Set<string>;
  scores: Map<string, ScoreState>;
}

/**
 * Is this field shown? A referenced field that is hidden counts as unanswered; a score counts
 * with its sum once complete (`state` holds the fields before this one).
 */
function isShown(field: FormField, values: Record<string, unknown>, state: FormState): boolean {
  const when = field.visibleWhen;
  if (!when) return true;
  const valueOf = (c: FieldCondition) => {
    if (!state.visible.has(c.field)) return undefined;
    const score = state.scores.get(c.field);
    return score ? score.value?.score : values[c.field];
  };
  if ("all" in when) return when.all.every((c) => conditionHolds(c, valueOf(c)));
  if ("any" in when) return when.any.some((c) => conditionHolds(c, valueOf(c)));
  return conditionHolds(when, valueOf(when));
}

/**
 * Visibility and scores, deciding in schema order. Conditions name only earlier fields and scores
 * sum only earlier ones (the template schema refuses anything else), so one pass settles every
 * field, including a field shown by a score (PHQ-9 item 9 → a safety question). Whatever `values`
 * holds under a score's key is ignored: scores are always computed.
 */
export function evaluateForm(schema: TemplateSchema, values: Record<string, unknown>): FormState {
  const state: FormState = { visible: new Set(), scores: new Map() };
  for (const field of schema.fields) {
    if (field.key === undefined || !isShown(field, values, state)) continue;
    state.visible.add(field.key);
    if (field.type === "score") state.scores.set(field.key, computeScore(schema, field, values, state.visible));
  }
  return state;
}

/** Keys of the visible fields (see evaluateForm). */
export function visibleFieldKeys(schema: TemplateSchema, values: Record<string, unknown>): Set<string> {
  return evaluateForm(schema, values).visible;
}

/** The fields shown, in order: display elements (heading, paragraph) follow their conditions too. */
export function visibleFields(
  schema: TemplateSchema,
  values: Record<string, unknown>,
  state: FormState = evaluateForm(schema, values),
): FormField[] {
  return schema.fields.filter((field) =>
    field.key !== undefined ? state.visible.has(field.key) : isShown(field, values, state),
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

/**
 * The values as the server stores them: whatever the client sent under a score field's key is
 * dropped, and each visible score field whose sources are all answered gets its computed value.
 */
export function withComputedScores(schema: TemplateSchema, values: Record<string, unknown>): Record<string, unknown> {
  if (!schema.fields.some((field) => field.type === "score")) return values;
  const out = { ...values };
  for (const field of schema.fields) if (field.type === "score") delete out[field.key];
  for (const [key, { value }] of evaluateForm(schema, out).scores) if (value) out[key] = value;
  return out;
}
