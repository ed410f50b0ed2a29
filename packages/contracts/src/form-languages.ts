import { fieldProblemCodes } from "./form-problems";
import type { PatientLanguage } from "./languages";
import type { FormField, TemplateSchema } from "./template-schema";
import { filled, optionValue, translationKey, type TranslatableTemplate } from "./form-localize";
import type { FieldTranslation, TemplateTranslation, TemplateTranslations } from "./template-translations";

export * from "./form-localize";
export * from "./template-translations";

/**
 * Form content in several languages (issue 19): a template is written in its `defaultLanguage`
 * and may carry `translations` of its title, description and each field's label, help text,
 * placeholder, option labels and error wording. Values never change with the language: a choice
 * stores its option value, whatever label the patient read.
 *
 * Fields are named by their key; display elements (heading, paragraph) without a key by their id.
 */

const optionLabel = (option: string | { value: string; label: string }) =>
  typeof option === "string" ? option : option.label;

/** A score field's bands by position ("0", "1", …), as its translations name them. */
const bandIndexes = (field: FormField) => (field.type === "score" ? (field.bands ?? []).map((_, i) => String(i)) : []);

/** Each answer list's option values, by the list's id. */
const optionSetValues = (schema: TemplateSchema) =>
  new Map((schema.optionSets ?? []).map((set) => [set.id, set.options.map(optionValue)]));

/** Does a field take its options from an answer list (translated there, once)? */
const usesOptionSet = (field: FormField) => "optionSet" in field && field.optionSet !== undefined;

export interface TranslationProblem {
  path: (string | number)[];
  message: string;
}

/**
 * What a template's translations name that its default texts do not: unknown languages are the
 * shape's business; here unknown field keys, option values and problem codes, and an entry for
 * the default language itself. The API answers 400 naming each path.
 */
export function translationProblems(
  schema: TemplateSchema,
  translations: TemplateTranslations,
  /** Unknown until the organization's is looked up: that rule is then left to the service. */
  defaultLanguage: PatientLanguage | undefined,
): TranslationProblem[] {
  const problems: TranslationProblem[] = [];
  const byKey = new Map(schema.fields.map((field) => [translationKey(field), field]));
  const sets = optionSetValues(schema);
  const codes: readonly string[] = fieldProblemCodes;
  for (const [language, translation] of Object.entries(translations)) {
    if (!translation) continue;
    if (language === defaultLanguage)
      problems.push({
        path: [language],
        message: `"${language}" is the default language: its texts are the template's own`,
      });
    for (const [id, labels] of Object.entries(translation.optionSets ?? {})) {
      const values = sets.get(id);
      if (!values) problems.push({ path: [language, "optionSets", id], message: `unknown answer list "${id}"` });
      else
        for (const value of Object.keys(labels))
          if (!values.includes(value))
            problems.push({
              path: [language, "optionSets", id, value],
              message: `"${value}" is not an option of answer list "${id}"`,
            });
    }
    for (const [key, entry] of Object.entries(translation.fields ?? {})) {
      const field = byKey.get(key);
      const at = [language, "fields", key];
      if (!field) {
        problems.push({ path: at, message: `unknown field key "${key}"` });
        continue;
      }
      const options = "options" in field ? field.options.map(optionValue) : [];
      for (const value of Object.keys(entry.options ?? {}))
        if (!options.includes(value))
          problems.push({ path: [...at, "options", value], message: `"${value}" is not an option of "${key}"` });
      for (const code of Object.keys(entry.errors ?? {}))
        if (!codes.includes(code))
          problems.push({ path: [...at, "errors", code], message: `"${code}" is not a problem code` });
      for (const band of Object.keys(entry.bands ?? {}))
        if (!bandIndexes(field).includes(band))
          problems.push({ path: [...at, "bands", band], message: `"${key}" has no band ${band}` });
    }
  }
  return problems;
}

/** The schema's fields without the entries a changed schema no longer has (a removed field, option). */
export function pruneTranslations(schema: TemplateSchema, translations: TemplateTranslations): TemplateTranslations {
  const byKey = new Map(schema.fields.map((field) => [translationKey(field), field]));
  const sets = optionSetValues(schema);
  const codes: readonly string[] = fieldProblemCodes;
  return Object.fromEntries(
    Object.entries(translations).map(([language, translation]) => {
      const fields = Object.fromEntries(
        Object.entries(translation!.fields ?? {}).flatMap(([key, entry]) => {
          const field = byKey.get(key);
          if (!field) return [];
          const options = "options" in field ? field.options.map(optionValue) : [];
          const kept: FieldTranslation = { ...entry };
          if (entry.options)
            kept.options = Object.fromEntries(Object.entries(entry.options).filter(([v]) => options.includes(v)));
          if (entry.errors)
            kept.errors = Object.fromEntries(Object.entries(entry.errors).filter(([c]) => codes.includes(c)));
          if (entry.bands)
            kept.bands = Object.fromEntries(
              Object.entries(entry.bands).filter(([b]) => bandIndexes(field).includes(b)),
            );
          return [[key, kept]];
        }),
      );
      const optionSets = translation!.optionSets
        ? Object.fromEntries(
            Object.entries(translation!.optionSets).flatMap(([id, labels]) => {
              const values = sets.get(id);
              return values
                ? [[id, Object.fromEntries(Object.entries(labels).filter(([v]) => values.includes(v)))]]
                : [];
            }),
          )
        : undefined;
      return [language, { ...translation, fields, ...(optionSets ? { optionSets } : {}) }];
    }),
  );
}

/** One text a translator fills in: where it goes and the default language's wording beside it. */
export interface TranslatableText {
  /**
   * `title`, `description`, `fields.<key>.label|help|placeholder`, `fields.<key>.options.<value>`,
   * `fields.<key>.bands.<index>`, or an answer list's option `optionSets.<id>.<value>`.
   */
  id: string;
  /** The field the text belongs to; null for the title, the description and answer lists. */
  fieldKey: string | null;
  part: "title" | "description" | "label" | "help" | "placeholder" | "option" | "band";
  optionValue?: string;
  /** The answer list an option belongs to. */
  optionSetId?: string;
  /** The band's position in its score field. */
  band?: number;
  source: string;
}

/** Every text of the template a translation should cover, in form order. */
export function translatableTexts(template: Pick<TranslatableTemplate, "title" | "description" | "schema">) {
  const texts: TranslatableText[] = [{ id: "title", fieldKey: null, part: "title", source: template.title }];
  if (filled(template.description ?? undefined))
    texts.push({ id: "description", fieldKey: null, part: "description", source: template.description! });
  for (const field of template.schema.fields) {
    const key = translationKey(field);
    if (filled(field.label))
      texts.push({ id: `fields.${key}.label`, fieldKey: key, part: "label", source: field.label });
    if (filled(field.helpText))
      texts.push({ id: `fields.${key}.help`, fieldKey: key, part: "help", source: field.helpText });
    if (filled(field.placeholder))
      texts.push({ id: `fields.${key}.placeholder`, fieldKey: key, part: "placeholder", source: field.placeholder });
    if ("options" in field && !usesOptionSet(field))
      for (const option of field.options)
        texts.push({
          id: `fields.${key}.options.${optionValue(option)}`,
          fieldKey: key,
          part: "option",
          optionValue: optionValue(option),
          source: optionLabel(option),
        });
    if (field.type === "score")
      (field.bands ?? []).forEach((band, i) =>
        texts.push({ id: `fields.${key}.bands.${i}`, fieldKey: key, part: "band", band: i, source: band.label }),
      );
  }
  for (const set of template.schema.optionSets ?? [])
    for (const option of set.options)
      texts.push({
        id: `optionSets.${set.id}.${optionValue(option)}`,
        fieldKey: null,
        part: "option",
        optionSetId: set.id,
        optionValue: optionValue(option),
        source: optionLabel(option),
      });
  return texts;
}

/** A text's wording in a translation, or undefined where it has none. */
export function translatedText(translation: TemplateTranslation | undefined, text: TranslatableText) {
  if (!translation) return undefined;
  if (text.part === "title") return translation.title;
  if (text.part === "description") return translation.description;
  if (text.optionSetId !== undefined) return translation.optionSets?.[text.optionSetId]?.[text.optionValue!];
  const entry = translation.fields?.[text.fieldKey!];
  if (text.part === "option") return entry?.options?.[text.optionValue!];
  if (text.part === "band") return entry?.bands?.[String(text.band)];
  return entry?.[text.part];
}

/** How much of a template a language covers: "12 of 15 translated", and which are missing. */
export function translationCoverage(
  template: Pick<TranslatableTemplate, "title" | "description" | "schema">,
  translation: TemplateTranslation | undefined,
) {
  const texts = translatableTexts(template);
  const missing = texts.filter((text) => !filled(translatedText(translation, text)));
  return { total: texts.length, translated: texts.length - missing.length, missing };
}
