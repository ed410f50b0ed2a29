import { withOptionSets, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { keyFromLabel } from "./builder-fields";

// ---- option rows --------------------------------------------------------------------------------

/** A choice field's options as value and label (a plain option is both); none for another field. */
export const optionsOf = (field: FormField | undefined): { value: string; label: string }[] =>
  field && "options" in field
    ? field.options.map((o) => (typeof o === "string" ? { value: o, label: o } : { value: o.value, label: o.label }))
    : [];

type EditedOption = string | { value: string; label: string; weight?: number };

/**
 * One row of the options editor, as typed: what patients read, what is stored (the value a
 * condition or an export names), and what choosing it adds to a score.
 */
export interface OptionRow {
  label: string;
  value: string;
  weight: string;
}

export function optionRows(options: readonly EditedOption[]): OptionRow[] {
  return options.map((option) =>
    typeof option === "string"
      ? { label: option, value: option, weight: "" }
      : { label: option.label, value: option.value, weight: option.weight === undefined ? "" : String(option.weight) },
  );
}

/** A weight as typed: "2", "-1", "1.5" or "1,5"; undefined when blank or not a number. */
export function parseWeight(text: string): number | undefined {
  const match = /^\s*(-?\d+(?:[.,]\d+)?)\s*$/.exec(text);
  return match ? Number(match[1]!.replace(",", ".")) : undefined;
}

/**
 * Rows back to options: blank rows are dropped, a row without a value stores its label, and a
 * row whose value is its label and that has no weight stays a plain string.
 */
export function optionsFromRows(rows: readonly OptionRow[]): EditedOption[] {
  return rows.flatMap((row): EditedOption[] => {
    const label = row.label.trim();
    const value = row.value.trim() || label;
    if (!value) return [];
    const weight = parseWeight(row.weight);
    if (weight !== undefined) return [{ value, label: label || value, weight }];
    return label && label !== value ? [{ value, label }] : [value];
  });
}

/** A row's label changed: its value follows while it still equals the label (as a key follows a label). */
export function withRowLabel(row: OptionRow, label: string): OptionRow {
  return { ...row, label, value: row.value === row.label || row.value === "" ? label : row.value };
}

// ---- answer lists (option sets) -----------------------------------------------------------------

export type OptionSet = NonNullable<TemplateSchema["optionSets"]>[number];

/** The choice fields that take their options from the answer list `id`. */
export function optionSetUsers(schema: TemplateSchema, id: string): FormField[] {
  return schema.fields.filter((field) => "optionSet" in field && field.optionSet === id);
}

/** A new answer list from a name and options; with `linkIndex`, that field uses it at once. */
export function addOptionSet(
  schema: TemplateSchema,
  label: string,
  options: OptionSet["options"],
  linkIndex?: number,
): { schema: TemplateSchema; id: string } {
  const sets = schema.optionSets ?? [];
  const taken = new Set(sets.map((set) => set.id));
  const wanted = keyFromLabel(label);
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted}${n}`;
  const fields =
    linkIndex === undefined
      ? schema.fields
      : schema.fields.map((field, i) => (i === linkIndex ? ({ ...field, optionSet: id } as FormField) : field));
  return { schema: withOptionSets({ ...schema, fields, optionSets: [...sets, { id, label, options }] }), id };
}

/** Changes an answer list; every field using it follows. */
export function updateOptionSet(schema: TemplateSchema, id: string, patch: Partial<Omit<OptionSet, "id">>) {
  const optionSets = (schema.optionSets ?? []).map((set) => (set.id === id ? { ...set, ...patch } : set));
  return withOptionSets({ ...schema, optionSets });
}

/** Removes an answer list: the fields that used it keep a copy of its options as their own. */
export function removeOptionSet(schema: TemplateSchema, id: string): TemplateSchema {
  const fields = schema.fields.map((field) => {
    if (!("optionSet" in field) || field.optionSet !== id) return field;
    const own = { ...field };
    delete own.optionSet;
    return own;
  });
  const optionSets = (schema.optionSets ?? []).filter((set) => set.id !== id);
  const next: TemplateSchema = { ...schema, fields };
  if (optionSets.length > 0) next.optionSets = optionSets;
  else delete next.optionSets;
  return next;
}

/** A field takes its options from the answer list `id`, or (undefined) keeps the ones it shows as its own. */
export function linkOptionSet(schema: TemplateSchema, index: number, id: string | undefined): TemplateSchema {
  const fields = schema.fields.map((field, i) => {
    if (i !== index || !("options" in field)) return field;
    const next = { ...field };
    if (id === undefined) delete next.optionSet;
    else next.optionSet = id;
    return next;
  });
  return withOptionSets({ ...schema, fields });
}
