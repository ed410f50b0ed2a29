import { z } from "zod";
import { fieldProblemCodes } from "./form-problems";
import { patientLanguage, patientLanguages, type PatientLanguage } from "./languages";
import type { TemplateSchema } from "./templates";
import { filled, optionValue, translationKey, type TranslatableTemplate } from "./form-localize";

export * from "./form-localize";

/**
 * Form content in several languages (issue 19): a template is written in its `defaultLanguage`
 * and may carry `translations` of its title, description and each field's label, help text,
 * placeholder, option labels and error wording. Values never change with the language: a choice
 * stores its option value, whatever label the patient read.
 *
 * Fields are named by their key; display elements (heading, paragraph) without a key by their id.
 */

const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });

export const fieldTranslation = z.strictObject({
  label: text(500).optional(),
  help: text(1000).optional(),
  placeholder: text(200).optional(),
  /** Option value → label in this language. */
  options: z.record(z.string().max(200), text(500)).optional(),
  /** Problem code (`required`, `pattern`, …) → the wording the patient reads in this language. */
  errors: z.record(z.string().max(40), text(500)).optional(),
});
export type FieldTranslation = z.infer<typeof fieldTranslation>;

export const templateTranslation = z.strictObject({
  title: text(120).optional(),
  description: text(1000).optional(),
  fields: z.record(z.string().max(100), fieldTranslation).default({}),
});
export type TemplateTranslation = z.infer<typeof templateTranslation>;

/** Language → its texts. The default language is the template's own text and has no entry. */
export const templateTranslations = z
  .record(z.string(), templateTranslation, { message: "must be an object of languages" })
  .superRefine((translations, ctx) => {
    for (const language of Object.keys(translations))
      if (!patientLanguage.safeParse(language).success)
        ctx.addIssue({
          code: "custom",
          path: [language],
          message: `"${language}" is not a form language (${patientLanguages.join(", ")})`,
        });
  });
export type TemplateTranslations = Partial<Record<PatientLanguage, TemplateTranslation>>;

const optionLabel = (option: string | { value: string; label: string }) =>
  typeof option === "string" ? option : option.label;

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
  const codes: readonly string[] = fieldProblemCodes;
  for (const [language, translation] of Object.entries(translations)) {
    if (!translation) continue;
    if (language === defaultLanguage)
      problems.push({
        path: [language],
        message: `"${language}" is the default language: its texts are the template's own`,
      });
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
    }
  }
  return problems;
}

/** The schema's fields without the entries a changed schema no longer has (a removed field, option). */
export function pruneTranslations(schema: TemplateSchema, translations: TemplateTranslations): TemplateTranslations {
  const byKey = new Map(schema.fields.map((field) => [translationKey(field), field]));
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
          return [[key, kept]];
        }),
      );
      return [language, { ...translation, fields }];
    }),
  );
}

/** One text a translator fills in: where it goes and the default language's wording beside it. */
export interface TranslatableText {
  /** `title`, `description`, or `fields.<key>.label|help|placeholder`, `fields.<key>.options.<value>`. */
  id: string;
  fieldKey: string | null;
  part: "title" | "description" | "label" | "help" | "placeholder" | "option";
  optionValue?: string;
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
    if ("options" in field)
      for (const option of field.options)
        texts.push({
          id: `fields.${key}.options.${optionValue(option)}`,
          fieldKey: key,
          part: "option",
          optionValue: optionValue(option),
          source: optionLabel(option),
        });
  }
  return texts;
}

/** A text's wording in a translation, or undefined where it has none. */
export function translatedText(translation: TemplateTranslation | undefined, text: TranslatableText) {
  if (!translation) return undefined;
  if (text.part === "title") return translation.title;
  if (text.part === "description") return translation.description;
  const entry = translation.fields?.[text.fieldKey!];
  if (text.part === "option") return entry?.options?.[text.optionValue!];
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
