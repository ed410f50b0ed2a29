import { z } from "zod";
import { isoDateTime, listLimit } from "./common";
import { listInput } from "./lists";
import { patternProblem } from "./pattern";
import { translationProblems, templateTranslations, type TemplateTranslations } from "./form-languages";
import { patientLanguage, type PatientLanguage } from "./languages";

export const templateStatuses = ["draft", "active", "archived"] as const;
export const templateStatus = z.enum(templateStatuses, { message: "must be one of draft, active, archived" });

const fieldKey = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,99}$/, {
  message: "must start with a letter and contain only letters, digits, _ . - (at most 100)",
});
const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });
/**
 * A choice's weight: what choosing it adds to a score field's sum (PHQ-9: 0-3). FHIR carries it
 * as `itemWeight` on the item's `answerOption`.
 */
const optionWeight = z
  .number({ message: "must be a number" })
  .finite()
  .min(-1000, { message: "must be between -1000 and 1000" })
  .max(1000, { message: "must be between -1000 and 1000" });
const option = z.union([
  text(200),
  z.strictObject({ value: text(200), label: text(500), weight: optionWeight.optional() }),
]);

/** One band of a score field: a score from `min` to `max` (both included) reads as `label`. */
export const scoreBand = z.strictObject({
  min: z.number({ message: "must be a number" }).finite(),
  max: z.number({ message: "must be a number" }).finite(),
  label: text(200).min(1, { message: "is required" }),
});
export type ScoreBand = z.infer<typeof scoreBand>;

export const conditionOperators = ["equals", "notEquals", "in", "filled", "empty"] as const;
export type ConditionOperator = (typeof conditionOperators)[number];

/** One comparison with an earlier field's value; see docs/forms-api.md "Conditional fields". */
export const fieldCondition = z.strictObject({
  field: fieldKey,
  operator: z.enum(conditionOperators, { message: "must be one of equals, notEquals, in, filled, empty" }),
  value: z
    .union(
      [
        text(500),
        z.number(),
        z.boolean(),
        z
          .array(z.union([text(500), z.number()]))
          .min(1)
          .max(100),
      ],
      {
        message: "must be a string, number, boolean or a list of strings and numbers",
      },
    )
    .optional(),
});
export type FieldCondition = z.infer<typeof fieldCondition>;

const conditionList = z
  .array(fieldCondition)
  .min(1, { message: "needs 1 to 20 conditions" })
  .max(20, { message: "needs 1 to 20 conditions" });
const visibleWhenShapes = [
  fieldCondition,
  z.strictObject({ all: conditionList }),
  z.strictObject({ any: conditionList }),
] as const;

/**
 * A union only says "Invalid input"; report the problem of the shape the input was meant to
 * have instead (`{all}`, `{any}` or one condition), e.g. "operator: must be one of …".
 */
function visibleWhenError(issue: {
  code: string;
  input?: unknown;
  errors?: { path: PropertyKey[]; message: string }[][];
}) {
  if (issue.code !== "invalid_union") return undefined;
  const input = issue.input;
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return "must be a condition {field, operator, value} or {all: [...]} or {any: [...]}";
  const branch = "all" in input ? 1 : "any" in input ? 2 : 0;
  const first = issue.errors?.[branch]?.[0];
  return first ? `${first.path.length > 0 ? `${first.path.join(".")}: ` : ""}${first.message}` : undefined;
}

export const visibleWhen = z.union(visibleWhenShapes, { error: visibleWhenError }).meta({
  description:
    "Show the field only when this holds: one condition {field, operator, value?}, or {all: [...]} / {any: [...]} of 1-20. " +
    "`field` is the key of an earlier, non-display field; operators equals, notEquals, in (value: list), filled, empty (no value). " +
    "On a multiselect, equals means contains and in means contains any; a hidden field counts as empty. " +
    "Hidden fields are not required, not validated and not stored.",
});
export type VisibleWhen = z.infer<typeof visibleWhen>;

const base = {
  id: z.string().min(1).max(100),
  key: fieldKey,
  label: text(500),
  required: z.boolean().optional(),
  placeholder: text(200).optional(),
  helpText: text(1000).optional(),
  visibleWhen: visibleWhen.optional(),
};
const lengths = {
  minLength: z.number().int().min(0).max(100_000).optional(),
  maxLength: z.number().int().min(1).max(100_000).optional(),
  // Patterns run on RE2 (linear time): backreferences and lookaround are refused here, at F2/F5.
  pattern: text(500)
    .superRefine((p, ctx) => {
      const problem = patternProblem(p);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
};
const isoDate = z.iso.date({ message: "must be a date (YYYY-MM-DD)" });

export const formField = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ ...base, type: z.literal("text"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("textarea"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("email"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("phone"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("number"), min: z.number().optional(), max: z.number().optional() }),
    z.strictObject({ ...base, type: z.literal("date"), min: isoDate.optional(), max: isoDate.optional() }),
    z.strictObject({ ...base, type: z.literal("select"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("radio"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("multiselect"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("checkbox") }),
    z.strictObject({
      ...base,
      type: z.literal("file"),
      accept: text(500).optional(),
      maxSizeMb: z.number().positive().max(25).optional(),
    }),
    z.strictObject({ ...base, type: z.literal("signature") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("heading") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("paragraph") }),
    // A calculated, read-only field: the sum of the weights of the options chosen in `sources`
    // (earlier select, radio or multiselect fields), and the band that sum falls into. Computed
    // by form-scores.ts in the browser and again by the server at submit; never typed in.
    z.strictObject({
      ...base,
      type: z.literal("score"),
      sources: z
        .array(fieldKey)
        .min(1, { message: "needs 1 to 100 source fields" })
        .max(100, { message: "needs 1 to 100 source fields" }),
      bands: z.array(scoreBand).max(20, { message: "at most 20 bands" }).optional(),
    }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? "type must be one of text, textarea, email, phone, number, date, select, radio, checkbox, multiselect, file, signature, heading, paragraph, score"
        : undefined,
  },
);
export type FormField = z.infer<typeof formField>;

const isDisplay = (field: FormField) => field.type === "heading" || field.type === "paragraph";

/** What a condition's `value` must be for the referenced field; null: only filled/empty apply. */
function conditionValueType(field: FormField): "string" | "number" | "boolean" | null {
  if (field.type === "checkbox") return "boolean";
  if (field.type === "number") return "number";
  if (field.type === "file" || field.type === "signature") return null;
  return "string";
}

/**
 * The problem with one condition of the field at `index`, as [path below the condition, message].
 * Only keys of earlier fields may be named: evaluation then runs in one pass in schema order, and
 * no cycle (a ↔ b, or a field hiding itself) can be written down.
 */
function conditionProblem(
  condition: FieldCondition,
  index: number,
  fields: FormField[],
  indexByKey: Map<string, number>,
): [string[], string] | null {
  const { field: key, operator, value } = condition;
  const targetIndex = indexByKey.get(key);
  if (fields[index]!.key === key) return [["field"], "a field cannot depend on itself"];
  if (targetIndex === undefined) return [["field"], `refers to unknown field "${key}"`];
  const target = fields[targetIndex]!;
  if (isDisplay(target)) return [["field"], `refers to "${key}", a display element without a value`];
  if (target.type === "score") return [["field"], `refers to "${key}", a calculated score`];
  if (targetIndex > index)
    return [["field"], `refers to "${key}", which comes later; conditions may only refer to earlier fields`];
  if (operator === "filled" || operator === "empty")
    return value === undefined ? null : [["value"], `must be left out for ${operator}`];
  if (value === undefined) return [["value"], `is required for ${operator}`];
  if (operator === "in" && !Array.isArray(value)) return [["value"], "must be a list for in"];
  if (operator !== "in" && Array.isArray(value))
    return [["value"], `must be a single value for ${operator}; use in for a list`];
  const expected = conditionValueType(target);
  if (expected === null) return [["operator"], `only filled and empty apply to ${target.type} fields`];
  if (expected === "boolean" && operator === "in") return [["operator"], "use equals or notEquals for checkbox fields"];
  const candidates = Array.isArray(value) ? value : [value];
  if (candidates.some((v) => typeof v !== expected))
    return [["value"], `must be ${expected === "string" ? "text" : `a ${expected}`} like the values of "${key}"`];
  if ("options" in target) {
    const options = target.options.map((o) => (typeof o === "string" ? o : o.value));
    const unknown = candidates.find((v) => !options.includes(v as string));
    if (unknown !== undefined) return [["value"], `"${String(unknown)}" is not an option of "${key}"`];
  }
  return null;
}

const SCORE_SOURCE_TYPES = new Set(["select", "radio", "multiselect"]);

/**
 * The problems of a score field at `index`, as [path below the field, message]: its sources are
 * distinct, earlier choice fields (one pass in schema order computes every score), and its bands
 * do not overlap.
 */
function scoreProblems(
  field: Extract<FormField, { type: "score" }>,
  index: number,
  fields: FormField[],
  indexByKey: Map<string, number>,
): [(string | number)[], string][] {
  const problems: [(string | number)[], string][] = [];
  const seen = new Set<string>();
  field.sources.forEach((key, i) => {
    const at = ["sources", i];
    const targetIndex = indexByKey.get(key);
    if (seen.has(key)) problems.push([at, `names "${key}" twice`]);
    else if (targetIndex === undefined) problems.push([at, `refers to unknown field "${key}"`]);
    else if (!SCORE_SOURCE_TYPES.has(fields[targetIndex]!.type))
      problems.push([at, `refers to "${key}", which is not a select, radio or multiselect field`]);
    else if (targetIndex > index)
      problems.push([at, `refers to "${key}", which comes later; a score may only sum earlier fields`]);
    seen.add(key);
  });
  const bands = field.bands ?? [];
  bands.forEach((band, i) => {
    if (band.min > band.max) problems.push([["bands", i, "min"], "min must not exceed max"]);
    const overlapping = bands.findIndex((other, j) => j < i && band.min <= other.max && other.min <= band.max);
    if (overlapping !== -1) problems.push([["bands", i], `overlaps band ${overlapping + 1}`]);
  });
  return problems;
}

export const templateSchema = z
  .strictObject({
    version: z.number({ message: "must be a number" }).finite(),
    fields: z.array(formField).max(500, { message: "at most 500 fields" }),
  })
  .superRefine((schema, ctx) => {
    const indexByKey = new Map<string, number>();
    schema.fields.forEach((field, index) => {
      if (field.key !== undefined && !indexByKey.has(field.key)) indexByKey.set(field.key, index);
    });
    schema.fields.forEach((field, index) => {
      const when = field.visibleWhen;
      if (!when) return;
      const list: [(string | number)[], FieldCondition][] =
        "all" in when
          ? when.all.map((c, i) => [["all", i], c])
          : "any" in when
            ? when.any.map((c, i) => [["any", i], c])
            : [[[], when]];
      for (const [at, condition] of list) {
        const problem = conditionProblem(condition, index, schema.fields, indexByKey);
        if (problem)
          ctx.addIssue({
            code: "custom",
            path: ["fields", index, "visibleWhen", ...at, ...problem[0]],
            message: problem[1],
          });
      }
    });
    schema.fields.forEach((field, index) => {
      if (field.type !== "score") return;
      for (const [at, problem] of scoreProblems(field, index, schema.fields, indexByKey))
        ctx.addIssue({ code: "custom", path: ["fields", index, ...at], message: problem });
    });
    const keys = new Set<string>();
    const ids = new Set<string>();
    schema.fields.forEach((field, index) => {
      if (field.key !== undefined) {
        if (keys.has(field.key))
          ctx.addIssue({ code: "custom", path: ["fields", index, "key"], message: `duplicate key "${field.key}"` });
        keys.add(field.key);
      }
      if (ids.has(field.id))
        ctx.addIssue({ code: "custom", path: ["fields", index, "id"], message: `duplicate id "${field.id}"` });
      ids.add(field.id);
      const range = field as { min?: number | string; max?: number | string; minLength?: number; maxLength?: number };
      if (range.min !== undefined && range.max !== undefined && range.min > range.max)
        ctx.addIssue({ code: "custom", path: ["fields", index, "min"], message: "min must not exceed max" });
      if (range.minLength !== undefined && range.maxLength !== undefined && range.minLength > range.maxLength)
        ctx.addIssue({
          code: "custom",
          path: ["fields", index, "minLength"],
          message: "minLength must not exceed maxLength",
        });
    });
  });
export type TemplateSchema = z.infer<typeof templateSchema>;

export const emptyTemplateSchema: TemplateSchema = { version: 1, fields: [] };

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
  schema: templateSchema,
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
