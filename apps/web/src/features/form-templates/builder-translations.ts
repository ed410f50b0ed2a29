import {
  patientLanguages,
  translationCoverage,
  type FieldTranslation,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslation,
  type TemplateTranslations,
  type TranslatableText,
} from "@clinsign/contracts";

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
