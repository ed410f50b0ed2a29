import type { FieldProblemCode } from "./form-problems";
import type { TemplateTranslations } from "./template-translations";
import type { PatientLanguage } from "./language-list";
import type { FormField, TemplateSchema } from "./template-schema";

// A template in the patient's language, without zod: the patient form pages import this in the
// browser (form-languages.ts holds the schemas and the builder's helpers).

/** The name a field's translation goes under: its key, or a display element's id. */
export const translationKey = (field: FormField): string => field.key ?? field.id;

export const optionValue = (option: string | { value: string }) => (typeof option === "string" ? option : option.value);

/** What a template needs to be shown in a language. */
export interface TranslatableTemplate {
  title: string;
  description: string | null;
  schema: TemplateSchema;
  defaultLanguage: PatientLanguage;
  translations: TemplateTranslations;
}

export interface LocalizedTemplate {
  /** The language the content is in: the one asked for when the template has it, else the default. */
  language: PatientLanguage;
  title: string;
  description: string | null;
  schema: TemplateSchema;
  /** Field key → problem code → wording, where this language words a problem itself. */
  errors: Record<string, Partial<Record<FieldProblemCode, string>>>;
}

/** The language a template is shown in when `wanted` is asked for. */
export function contentLanguage(
  template: Pick<TranslatableTemplate, "defaultLanguage" | "translations">,
  wanted: string | null | undefined,
): PatientLanguage {
  if (wanted && wanted !== template.defaultLanguage && wanted in template.translations)
    return wanted as PatientLanguage;
  return template.defaultLanguage;
}

export const filled = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

/**
 * The template in `wanted`, each text falling back to the default language where that language
 * has none. One implementation for the embedded form, the SMS form, the builder's preview and the
 * staff outputs; values (option values) are never touched.
 */
export function localizeTemplate(template: TranslatableTemplate, wanted: string | null | undefined): LocalizedTemplate {
  const language = contentLanguage(template, wanted);
  const translation = language === template.defaultLanguage ? undefined : template.translations[language];
  if (!translation)
    return {
      language,
      title: template.title,
      description: template.description,
      schema: template.schema,
      errors: {},
    };
  const errors: LocalizedTemplate["errors"] = {};
  const fields = template.schema.fields.map((field): FormField => {
    const setLabels =
      "optionSet" in field && field.optionSet !== undefined ? translation.optionSets?.[field.optionSet] : undefined;
    // A field's own option wording wins over its answer list's.
    const own = translation.fields?.[translationKey(field)];
    const entry = setLabels ? { ...own, options: { ...setLabels, ...own?.options } } : own;
    if (!entry) return field;
    if (entry.errors && field.key) errors[field.key] = entry.errors as Partial<Record<FieldProblemCode, string>>;
    const next = { ...field } as FormField;
    if (filled(entry.label)) next.label = entry.label;
    if (filled(entry.help) && field.helpText !== undefined) next.helpText = entry.help;
    if (filled(entry.placeholder) && field.placeholder !== undefined) next.placeholder = entry.placeholder;
    if ("options" in next && entry.options) {
      const labels = entry.options;
      next.options = next.options.map((option) => {
        const value = optionValue(option);
        const label = labels[value];
        if (!filled(label)) return option;
        return typeof option === "string" ? { value, label } : { ...option, label };
      });
    }
    if (next.type === "score" && next.bands && entry.bands) {
      const labels = entry.bands;
      next.bands = next.bands.map((band, i) => (filled(labels[i]) ? { ...band, label: labels[i] } : band));
    }
    return next;
  });
  return {
    language,
    title: filled(translation.title) ? translation.title : template.title,
    description:
      filled(translation.description) && template.description ? translation.description : template.description,
    schema: { ...template.schema, fields },
    errors,
  };
}
