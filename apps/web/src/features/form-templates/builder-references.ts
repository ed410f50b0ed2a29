import { conditionOperators, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { hasOptions, isDisplayType, type FieldType } from "./builder-field-types";

// What a field refers to in other fields: its conditions on earlier answers, and the fields a score
// sums. Removing or renaming a field carries these along (builder-fields.ts).

// ---- conditions ---------------------------------------------------------------------------------

export type When = NonNullable<FormField["visibleWhen"]>;
type Operator = (typeof conditionOperators)[number];

/** The fields a condition of the field at `index` may name: earlier fields with a value, scores included. */
export const conditionTargets = (fields: readonly FormField[], index: number) =>
  fields.slice(0, index).filter((field) => field.key && !isDisplayType(field.type as FieldType));

/** The operators the builder offers for a field of `type`, in the order of the menu. */
export function operatorsFor(type: FieldType | undefined): Operator[] {
  if (type === "file" || type === "signature") return ["filled", "empty"];
  if (type === "checkbox") return ["equals", "notEquals"];
  if (type === "number") return ["equals", "notEquals", "atLeast", "atMost", "between", "filled", "empty"];
  if (type === "score") return ["atLeast", "atMost", "between", "equals", "notEquals", "filled", "empty"];
  return ["equals", "notEquals", "in", "filled", "empty"];
}

function conditionsOf(field: FormField) {
  const when = field.visibleWhen;
  if (!when) return [];
  return "all" in when ? when.all : "any" in when ? when.any : [when];
}

/** A field's condition without the parts that name `key` (none left: no condition). */
export function withoutConditionsOn(field: FormField, key: string): FormField {
  const when = field.visibleWhen;
  if (!when) return field;
  const kept = conditionsOf(field).filter((condition) => condition.field !== key);
  const next = { ...field } as FormField;
  if (kept.length === 0) delete next.visibleWhen;
  else
    next.visibleWhen = "any" in when ? { any: kept } : kept.length === 1 && !("all" in when) ? kept[0]! : { all: kept };
  return next;
}

/** A field's condition with `from` renamed to `to` wherever it names it. */
export function renameConditionKey(field: FormField, from: string, to: string): FormField {
  const when = field.visibleWhen;
  if (!when) return field;
  const rename = <C extends { field: string }>(condition: C): C =>
    condition.field === from ? { ...condition, field: to } : condition;
  const next = { ...field } as FormField;
  next.visibleWhen =
    "all" in when ? { all: when.all.map(rename) } : "any" in when ? { any: when.any.map(rename) } : rename(when);
  return next;
}

/** Keys of the fields whose conditions refer to `key`: shown on the field they depend on. */
export function dependents(schema: TemplateSchema, key: string | undefined): FormField[] {
  if (!key) return [];
  return schema.fields.filter((field) => conditionsOf(field).some((condition) => condition.field === key));
}

// ---- scores -------------------------------------------------------------------------------------

/** The fields a score may sum: choice fields above `index`. */
export const scoreSourceCandidates = (fields: readonly FormField[], index: number) =>
  fields.slice(0, index).filter((field) => hasOptions(field.type as FieldType) && field.key);

/** A score no longer sums a removed field. */
export function withoutSource(field: FormField, key: string): FormField {
  return field.type === "score" && field.sources.includes(key)
    ? { ...field, sources: field.sources.filter((source) => source !== key) }
    : field;
}

/** A score follows a renamed source key. */
export function renameSource(field: FormField, from: string, to: string): FormField {
  return field.type === "score" && field.sources.includes(from)
    ? { ...field, sources: field.sources.map((source) => (source === from ? to : source)) }
    : field;
}

export type Band = { min: number; max: number; label: string };

/** The next band of a score: from one above the last band's max, five wide. */
export function nextBand(bands: readonly Band[]): Band {
  const last = bands[bands.length - 1];
  const min = last ? last.max + 1 : 0;
  return { min, max: min + 4, label: "" };
}
