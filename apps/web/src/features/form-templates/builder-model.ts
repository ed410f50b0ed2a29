import {
  patientLanguages,
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
  return { ...schema, fields };
}

export function replaceField(schema: TemplateSchema, index: number, field: FormField): TemplateSchema {
  const previous = schema.fields[index];
  let fields = schema.fields.map((f, i) => (i === index ? field : f));
  // A renamed key: conditions that named the old key follow it.
  if (previous?.key && field.key && previous.key !== field.key)
    fields = fields.map((f) =>
      renameSource(renameConditionKey(f, previous.key!, field.key!), previous.key!, field.key!),
    );
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
 * Options as the editor shows them: one per line, `value | label` when they differ, and
 * `value | label | weight` when the option has a weight (what it adds to a score).
 */
export function optionsToText(options: readonly EditedOption[]): string {
  return options
    .map((option) => {
      if (typeof option === "string") return option;
      if (option.weight !== undefined) return `${option.value} | ${option.label || option.value} | ${option.weight}`;
      return option.label && option.label !== option.value ? `${option.value} | ${option.label}` : option.value;
    })
    .join("\n");
}

/** A weight after the last bar: a number, "-1" or "1.5" ("1,5" too). */
const WEIGHT = /^\s*(-?\d+(?:[.,]\d+)?)\s*$/;

export function textToOptions(text: string): EditedOption[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line): EditedOption => {
      const bar = line.indexOf("|");
      if (bar < 0) return line;
      const value = line.slice(0, bar).trim();
      let label = line.slice(bar + 1).trim();
      let weight: number | undefined;
      const lastBar = label.lastIndexOf("|");
      const weightText = lastBar >= 0 ? WEIGHT.exec(label.slice(lastBar + 1)) : null;
      if (weightText) {
        weight = Number(weightText[1]!.replace(",", "."));
        label = label.slice(0, lastBar).trim();
      }
      if (!value) return label;
      if (weight !== undefined) return { value, label: label || value, weight };
      return label ? { value, label } : value;
    })
    .filter((option) => option !== "");
}

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
  const fields = { ...current.fields };
  const entry: FieldTranslation = { ...fields[text.fieldKey!] };
  if (text.part === "option") {
    const options = { ...entry.options, [text.optionValue!]: typed };
    if (typed === undefined) delete options[text.optionValue!];
    entry.options = Object.keys(options).length > 0 ? (options as Record<string, string>) : undefined;
  } else entry[text.part] = typed;
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
