import { z } from "zod";
import { isoDateTime, listLimit } from "./common";
import { listInput } from "./lists";
import { translationProblems } from "./form-languages";
import { patientLanguage, type PatientLanguage } from "./languages";
import { emptyTemplateSchema, storedTemplateSchema, templateSchema, type TemplateSchema } from "./template-schema";
import { templateTranslations, type TemplateTranslations } from "./template-translations";

export * from "./template-schema";

export const templateStatuses = ["draft", "active", "archived"] as const;
export const templateStatus = z.enum(templateStatuses, { message: "must be one of draft, active, archived" });

const title = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, { message: "must be 1 to 120 characters" })
  .max(120, { message: "must be 1 to 120 characters" });
const description = z.string().max(1000, { message: "must be at most 1000 characters" });

export const templateIdentifier = z.string({ message: "is required" }).min(1, { message: "is required" }).max(200);

/** The language a template's own texts are written in; translations add the others. */
const defaultLanguage = patientLanguage.meta({
  description: "The language the template's own texts are in (de, en, tr, ar, ru, uk, pl); `de` by default.",
});
const translations = templateTranslations.meta({
  description:
    "Texts in other languages: {language: {title?, description?, fields: {fieldKey: {label?, help?, placeholder?, options?: {optionValue: label}, errors?: {problemCode: text}}}}}. " +
    "Unknown field keys, option values or problem codes are refused; missing texts fall back to the default language.",
});

/** Unknown keys in the translations are a 400 naming them (`translations.tr.fields.x`). */
function checkTranslations(
  input: { schema?: TemplateSchema; translations?: TemplateTranslations; defaultLanguage?: PatientLanguage },
  ctx: z.RefinementCtx,
) {
  if (!input.schema || !input.translations) return;
  for (const problem of translationProblems(input.schema, input.translations, input.defaultLanguage))
    ctx.addIssue({ code: "custom", path: ["translations", ...problem.path], message: problem.message });
}

export const createTemplateInput = z
  .object({
    title,
    description: description.nullish(),
    status: templateStatus.default("draft"),
    schema: templateSchema.default(emptyTemplateSchema),
    defaultLanguage: defaultLanguage.optional(),
    translations: translations.optional(),
  })
  .superRefine(checkTranslations);
export type CreateTemplateInput = z.input<typeof createTemplateInput>;

export const updateTemplateInput = z.object({
  identifier: templateIdentifier,
  title: title.optional(),
  description: description.nullish(),
  status: templateStatus.optional(),
  schema: templateSchema.optional(),
  defaultLanguage: defaultLanguage.optional(),
  translations: translations.optional(),
});
export type UpdateTemplateInput = z.input<typeof updateTemplateInput>;

export const templateByIdentifierInput = z.object({ identifier: templateIdentifier });

/** F3 loads only active templates; staff may look at any status. */
export const getTemplateInput = z.object({
  identifier: templateIdentifier,
  activeOnly: z.boolean().default(true),
});

export const listTemplatesInput = z.object({ limit: listLimit(300, 300) });

export const template = z.object({
  id: z.uuid(),
  identifier: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: templateStatus,
  schema: storedTemplateSchema,
  defaultLanguage: patientLanguage,
  translations: templateTranslations,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type Template = z.infer<typeof template>;

export const templateListItem = template.pick({ identifier: true, title: true, status: true, updatedAt: true });
export type TemplateListItem = z.infer<typeof templateListItem>;

/** A row of the staff console's template list. */
export const templateOverviewItem = templateListItem.extend({ fieldCount: z.number(), submissionCount: z.number() });
export type TemplateOverviewItem = z.infer<typeof templateOverviewItem>;

/** The staff console's template list (the list contract), newest change first. */
export const templateOverviewInput = listInput({
  q: z.string().trim().max(120, { message: "must be at most 120 characters" }).optional(),
  status: templateStatus.optional(),
});
export type TemplateOverviewInput = z.input<typeof templateOverviewInput>;
