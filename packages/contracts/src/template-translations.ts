// The schema of a template's translations (issue 19; form-languages.ts says how they are used),
// apart from the helpers, so that the browser's form-localize.ts can name their type.
import { z } from "zod";
import { patientLanguage, patientLanguages, type PatientLanguage } from "./languages";

const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });

export const fieldTranslation = z.strictObject({
  label: text(500).optional(),
  help: text(1000).optional(),
  placeholder: text(200).optional(),
  /** Option value → label in this language. */
  options: z.record(z.string().max(200), text(500)).optional(),
  /** Problem code (`required`, `pattern`, …) → the wording the patient reads in this language. */
  errors: z.record(z.string().max(40), text(500)).optional(),
  /** A score field's band, by its position ("0" is the first band) → label in this language. */
  bands: z.record(z.string().max(3), text(200)).optional(),
});
export type FieldTranslation = z.infer<typeof fieldTranslation>;

export const templateTranslation = z.strictObject({
  title: text(120).optional(),
  description: text(1000).optional(),
  fields: z.record(z.string().max(100), fieldTranslation).default({}),
  /** Answer list id → option value → label: translated once for every question using the list. */
  optionSets: z.record(z.string().max(100), z.record(z.string().max(200), text(500))).optional(),
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
