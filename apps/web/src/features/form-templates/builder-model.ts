import { renameFlagRules } from "@clinsign/contracts/form-flags";
import {
  conditionOperators,
  patientLanguages,
  withOptionSets,
  translationCoverage,
  type FieldTranslation,
  type FormField,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslation,
  type TemplateTranslations,
  type TranslatableText,
} from "@clinsign/contracts";

/** The field types of DESIGN.md, in the order the builder offers them. */
export const fieldTypes = [
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
  "score",
] as const satisfies readonly FormField["type"][];
export type FieldType = (typeof fieldTypes)[number];

export const isDisplayType = (type: FieldType) => type === "heading" || type === "paragraph";
export const hasOptions = (type: FieldType) => type === "select" || type === "radio" || type === "multiselect";

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

/** The fields a score may sum: choice fields above `index`. */
export const scoreSourceCandidates = (fields: readonly FormField[], index: number) =>
  fields.slice(0, index).filter((field) => hasOptions(field.type as FieldType) && field.key);

/** The longest key derived from a label: it must read well in the field list and the submitted data. */
export const DERIVED_KEY_LENGTH = 32;

/** A field key from a label: ASCII letters, digits and _ (umlauts spelled out), starting with a letter. */
export function keyFromLabel(label: string): string {
  const ascii = label
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/Ä/g, "Ae")
    .replace(/Ö/g, "Oe")
    .replace(/Ü/g, "Ue")
    .replace(/ß/g, "ss")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");
  const words = ascii.split(/[^A-Za-z0-9]+/).filter(Boolean);
  while (words.length > 0 && !/^[A-Za-z]/.test(words[0]!)) words.shift();
  const parts = words.map((word, index) =>
    index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase(),
  );
  // A long question makes a short key: whole words up to DERIVED_KEY_LENGTH (the first one cut if it alone is longer).
  let camel = parts[0] ?? "";
  for (const part of parts.slice(1)) {
    if (camel.length + part.length > DERIVED_KEY_LENGTH) break;
    camel += part;
  }
  const key = camel.replace(/^[^A-Za-z]+/, "").slice(0, DERIVED_KEY_LENGTH);
  return key || "field";
}

/** `wanted`, or `wanted2`, `wanted3`… whichever no other field has. */
export function uniqueKey(wanted: string, fields: readonly FormField[], exceptId?: string): string {
  const taken = new Set(fields.filter((field) => field.id !== exceptId && field.key).map((field) => field.key!));
  if (!taken.has(wanted)) return wanted;
  let n = 2;
  while (taken.has(`${wanted}${n}`)) n++;
  return `${wanted}${n}`;
}

function newId(fields: readonly FormField[]): string {
  const ids = new Set(fields.map((field) => field.id));
  let n = fields.length + 1;
  while (ids.has(`f${n}`)) n++;
  return `f${n}`;
}

/** A new field of `type` with a default label, a unique key, and what the type needs (options). */
export function createField(type: FieldType, label: string, fields: readonly FormField[]): FormField {
  const id = newId(fields);
  if (isDisplayType(type)) return { id, type, label } as FormField;
  const base = { id, label, key: uniqueKey(keyFromLabel(label), fields) };
  if (hasOptions(type)) return { ...base, type, options: ["Option 1", "Option 2"] } as FormField;
  // A new score sums every choice field so far (it is added at the end or below the selection).
  if (type === "score")
    return { ...base, type, sources: scoreSourceCandidates(fields, fields.length).map((f) => f.key!) } as FormField;
  return { ...base, type } as FormField;
}

export function addField(
  schema: TemplateSchema,
  field: FormField,
  afterIndex = schema.fields.length - 1,
): TemplateSchema {
  const fields = [...schema.fields];
  fields.splice(afterIndex + 1, 0, field);
  return { ...schema, fields };
}

/** Moves the field at `from` to `to` (both clamped to the list). */
export function moveField(schema: TemplateSchema, from: number, to: number): TemplateSchema {
  const target = Math.max(0, Math.min(schema.fields.length - 1, to));
  if (from === target || from < 0 || from >= schema.fields.length) return schema;
  const fields = [...schema.fields];
  const [moved] = fields.splice(from, 1);
  fields.splice(target, 0, moved!);
  return { ...schema, fields };
}

/** A copy right below the original, with its own id and key; conditions stay as they were. */
export function duplicateField(schema: TemplateSchema, index: number): TemplateSchema {
  const original = schema.fields[index];
  if (!original) return schema;
  const copy = { ...structuredClone(original), id: newId(schema.fields) } as FormField;
  if (copy.key !== undefined) copy.key = uniqueKey(copy.key, schema.fields);
  return addField(schema, copy, index);
}

/** Removes a field and every condition that referred to it (they could no longer hold). */
export function removeField(schema: TemplateSchema, index: number): TemplateSchema {
  const removed = schema.fields[index];
  if (!removed) return schema;
  const fields = schema.fields
    .filter((_, i) => i !== index)
    .map((field) => (removed.key ? withoutSource(withoutConditionsOn(field, removed.key), removed.key) : field));
  // Its "needs attention" rule goes with it.
  return removed.key ? renameFlagRules({ ...schema, fields }, removed.key, undefined) : { ...schema, fields };
}

export function replaceField(schema: TemplateSchema, index: number, field: FormField): TemplateSchema {
  const previous = schema.fields[index];
  let fields = schema.fields.map((f, i) => (i === index ? field : f));
  // A renamed key: conditions that named the old key follow it.
  if (previous?.key && field.key && previous.key !== field.key) {
    fields = fields.map((f) =>
      renameSource(renameConditionKey(f, previous.key!, field.key!), previous.key!, field.key!),
    );
    return renameFlagRules({ ...schema, fields }, previous.key, field.key);
  }
  return { ...schema, fields };
}

/** A score no longer sums a removed field. */
function withoutSource(field: FormField, key: string): FormField {
  return field.type === "score" && field.sources.includes(key)
    ? { ...field, sources: field.sources.filter((source) => source !== key) }
    : field;
}

/** A score follows a renamed source key. */
function renameSource(field: FormField, from: string, to: string): FormField {
  return field.type === "score" && field.sources.includes(from)
    ? { ...field, sources: field.sources.map((source) => (source === from ? to : source)) }
    : field;
}

function conditionsOf(field: FormField) {
  const when = field.visibleWhen;
  if (!when) return [];
  return "all" in when ? when.all : "any" in when ? when.any : [when];
}

function withoutConditionsOn(field: FormField, key: string): FormField {
  const when = field.visibleWhen;
  if (!when) return field;
  const kept = conditionsOf(field).filter((condition) => condition.field !== key);
  const next = { ...field } as FormField;
  if (kept.length === 0) delete next.visibleWhen;
  else
    next.visibleWhen = "any" in when ? { any: kept } : kept.length === 1 && !("all" in when) ? kept[0]! : { all: kept };
  return next;
}

function renameConditionKey(field: FormField, from: string, to: string): FormField {
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

/** A number as typed, or undefined for a blank or not-a-number input (the attribute then disappears). */
export const optionalNumber = (value: string) =>
  value.trim() === "" || !Number.isFinite(Number(value)) ? undefined : Number(value);

export type Band = { min: number; max: number; label: string };

/** The next band of a score: from one above the last band's max, five wide. */
export function nextBand(bands: readonly Band[]): Band {
  const last = bands[bands.length - 1];
  const min = last ? last.max + 1 : 0;
  return { min, max: min + 4, label: "" };
}

/**
 * The file types staff tick instead of typing MIME patterns, each with the `accept` entries it
 * stands for (extensions and types, as the server's check matches both).
 */
export const fileTypeChoices = {
  pdf: ["application/pdf", ".pdf"],
  images: ["image/*"],
  word: [
    ".doc",
    ".docx",
    "application/msword",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ],
  excel: [
    ".xls",
    ".xlsx",
    "application/vnd.ms-excel",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ],
  text: ["text/plain", ".txt"],
} as const;
export type FileTypeChoice = keyof typeof fileTypeChoices;

const acceptEntries = (accept: string | undefined) =>
  (accept ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);

/** An `accept` list as ticked choices (a choice counts when any of its entries is listed) and the rest, as typed. */
export function readAccept(accept: string | undefined): { choices: Set<FileTypeChoice>; other: string } {
  const entries = acceptEntries(accept);
  const choices = new Set<FileTypeChoice>();
  const known = new Set<string>();
  for (const [choice, list] of Object.entries(fileTypeChoices) as [FileTypeChoice, readonly string[]][]) {
    if (list.some((entry) => entries.includes(entry))) choices.add(choice);
    for (const entry of list) known.add(entry);
  }
  return { choices, other: entries.filter((entry) => !known.has(entry)).join(",") };
}

/** The `accept` list for ticked choices plus other entries; undefined when nothing is limited. */
export function writeAccept(choices: ReadonlySet<FileTypeChoice>, other: string): string | undefined {
  const entries = [
    ...(Object.keys(fileTypeChoices) as FileTypeChoice[])
      .filter((choice) => choices.has(choice))
      .flatMap((choice) => fileTypeChoices[choice]),
    ...acceptEntries(other),
  ];
  return entries.length > 0 ? [...new Set(entries)].join(",") : undefined;
}

// ---- translations (issue 19) --------------------------------------------------------------------

/** The template's languages after the default one, in the order of the patient languages. */
export function translationLanguages(translations: TemplateTranslations): PatientLanguage[] {
  return patientLanguages.filter((language) => translations[language] !== undefined);
}

/** Languages that can still be added: neither the default nor one the template has. */
export function addableLanguages(defaultLanguage: PatientLanguage, translations: TemplateTranslations) {
  return patientLanguages.filter((language) => language !== defaultLanguage && translations[language] === undefined);
}

export function addLanguage(translations: TemplateTranslations, language: PatientLanguage): TemplateTranslations {
  return translations[language] ? translations : { ...translations, [language]: { fields: {} } };
}

export function removeLanguage(translations: TemplateTranslations, language: PatientLanguage): TemplateTranslations {
  const next = { ...translations };
  delete next[language];
  return next;
}

/** A map of texts with `key` set to `value` (removed when undefined); undefined once empty. */
function withEntry(map: Record<string, string> | undefined, key: string, value: string | undefined) {
  const next = { ...map };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return Object.keys(next).length > 0 ? next : undefined;
}

const withoutEmpty = <T extends object>(entry: T): T | undefined =>
  Object.values(entry).some((value) => value !== undefined) ? entry : undefined;

/**
 * One text of a language set to `value`; an empty value removes it (it then falls back to the
 * default language and counts as missing again).
 */
export function setTranslatedText(
  translations: TemplateTranslations,
  language: PatientLanguage,
  text: TranslatableText,
  value: string,
): TemplateTranslations {
  const typed = value === "" ? undefined : value;
  const current: TemplateTranslation = translations[language] ?? { fields: {} };
  if (text.part === "title" || text.part === "description")
    return { ...translations, [language]: { ...current, [text.part]: typed } };
  if (text.optionSetId !== undefined) {
    const optionSets = { ...current.optionSets };
    const labels = withEntry(optionSets[text.optionSetId], text.optionValue!, typed);
    if (labels) optionSets[text.optionSetId] = labels;
    else delete optionSets[text.optionSetId];
    const next = { ...current, optionSets: Object.keys(optionSets).length > 0 ? optionSets : undefined };
    return { ...translations, [language]: JSON.parse(JSON.stringify(next)) as TemplateTranslation };
  }
  const fields = { ...current.fields };
  const entry: FieldTranslation = { ...fields[text.fieldKey!] };
  if (text.part === "option") entry.options = withEntry(entry.options, text.optionValue!, typed);
  else if (text.part === "band") entry.bands = withEntry(entry.bands, String(text.band), typed);
  else entry[text.part] = typed;
  const kept = withoutEmpty(entry);
  if (kept) fields[text.fieldKey!] = JSON.parse(JSON.stringify(kept)) as FieldTranslation;
  else delete fields[text.fieldKey!];
  return { ...translations, [language]: JSON.parse(JSON.stringify({ ...current, fields })) as TemplateTranslation };
}

/** "12 of 15 translated" for each language of the template. */
export function coverageByLanguage(
  template: { title: string; description: string | null; schema: TemplateSchema },
  translations: TemplateTranslations,
) {
  return translationLanguages(translations).map((language) => ({
    language,
    ...translationCoverage(template, translations[language]),
  }));
}
