// A form template's field schema: fields, conditions, answer lists and scores (the builder writes
// it, the renderer and validators read it). templates.ts holds the template around it.
import { z } from "zod";
import { patternProblem } from "./pattern";

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
const optionList = z.array(option).max(500, { message: "at most 500 options" });
/**
 * A choice field's options: its own, or (with `optionSet`) a copy of an answer list's, which the
 * template schema writes in whatever the client sent.
 */
const choiceOptions = optionList.default([]);

/**
 * An answer list shared by several questions (PHQ-9's "Not at all … Nearly every day"), like
 * FHIR's `answerValueSet`: written and translated once, copied into each field that names it.
 */
export const optionSet = z.strictObject({
  id: fieldKey,
  label: text(200).min(1, { message: "is required" }),
  options: optionList.min(1, { message: "needs 1 to 500 options" }),
});
export type OptionSet = z.infer<typeof optionSet>;

/** One band of a score field: a score from `min` to `max` (both included) reads as `label`. */
export const scoreBand = z.strictObject({
  min: z.number({ message: "must be a number" }).finite(),
  max: z.number({ message: "must be a number" }).finite(),
  label: text(200).min(1, { message: "is required" }),
});
export type ScoreBand = z.infer<typeof scoreBand>;

export const conditionOperators = [
  "equals",
  "notEquals",
  "in",
  "filled",
  "empty",
  "atLeast",
  "atMost",
  "between",
] as const;
export type ConditionOperator = (typeof conditionOperators)[number];
/** Operators comparing numbers: for number and score fields only. */
export const numericOperators: readonly ConditionOperator[] = ["atLeast", "atMost", "between"];

/** One comparison with an earlier field's value; see docs/forms-api.md "Conditional fields". */
export const fieldCondition = z.strictObject({
  field: fieldKey,
  operator: z.enum(conditionOperators, {
    message: "must be one of equals, notEquals, in, filled, empty, atLeast, atMost, between",
  }),
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
    "`field` is the key of an earlier, non-display field; operators equals, notEquals, in (value: list), filled, empty (no value), " +
    "and for number and score fields atLeast, atMost, between (value: [min, max], both included). " +
    "On a multiselect, equals means contains and in means contains any. An unanswered field (and a score whose questions are not all answered) " +
    "is neither equal nor unequal to anything; a hidden field counts as unanswered. " +
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
/**
 * What an answer measures, as FHIR's item.code (e.g. LOINC 29463-7 body weight, 44261-6 PHQ-9
 * total): a coded field's answer becomes an Observation in the clinical record (SDC extraction).
 */
const coding = z.strictObject({ system: z.url(), code: text(100).min(1), display: text(500).optional() });
const coded = { code: coding.optional() };

export const formField = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ ...base, type: z.literal("text"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("textarea"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("email"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("phone"), ...lengths }),
    z.strictObject({
      ...base,
      ...coded,
      type: z.literal("number"),
      min: z.number().optional(),
      max: z.number().optional(),
    }),
    z.strictObject({ ...base, ...coded, type: z.literal("date"), min: isoDate.optional(), max: isoDate.optional() }),
    z.strictObject({
      ...base,
      ...coded,
      type: z.literal("select"),
      options: choiceOptions,
      optionSet: fieldKey.optional(),
    }),
    z.strictObject({
      ...base,
      ...coded,
      type: z.literal("radio"),
      options: choiceOptions,
      optionSet: fieldKey.optional(),
    }),
    z.strictObject({ ...base, type: z.literal("multiselect"), options: choiceOptions, optionSet: fieldKey.optional() }),
    z.strictObject({ ...base, ...coded, type: z.literal("checkbox") }),
    z.strictObject({
      ...base,
      type: z.literal("file"),
      accept: text(500).optional(),
      maxSizeMb: z.number().positive().max(25).optional(),
    }),
    z.strictObject({ ...base, type: z.literal("signature") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("heading") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("paragraph") }),
    // A calculated, read-only field: the sum of the weights of the options chosen in `sources` (earlier choice
    // fields) and its band, computed by form-scores.ts in the browser and again by the server at submit. `code`
    // (PHQ-9 total: LOINC 44261-6) is FHIR's item.code and the code of the Observation the score becomes.
    z.strictObject({
      ...base,
      type: z.literal("score"),
      sources: z
        .array(fieldKey)
        .min(1, { message: "needs 1 to 100 source fields" })
        .max(100, { message: "needs 1 to 100 source fields" }),
      bands: z.array(scoreBand).max(20, { message: "at most 20 bands" }).optional(),
      ...coded,
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

/** The field types that may carry a `code`: an answer that measures one thing (a number, a date, one choice, a yes/no, a score). */
export type CodableField = Extract<FormField, { type: "number" | "date" | "select" | "radio" | "checkbox" | "score" }>;
const CODABLE_TYPES = new Set<string>(["number", "date", "select", "radio", "checkbox", "score"]);
export const isCodable = (field: FormField): field is CodableField => CODABLE_TYPES.has(field.type);

const isDisplay = (field: FormField) => field.type === "heading" || field.type === "paragraph";

/** What a condition's `value` must be for the referenced field; null: only filled/empty apply. */
function conditionValueType(field: FormField): "string" | "number" | "boolean" | null {
  if (field.type === "checkbox") return "boolean";
  if (field.type === "number" || field.type === "score") return "number";
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
  if (targetIndex > index)
    return [["field"], `refers to "${key}", which comes later; conditions may only refer to earlier fields`];
  if (operator === "filled" || operator === "empty")
    return value === undefined ? null : [["value"], `must be left out for ${operator}`];
  if (value === undefined) return [["value"], `is required for ${operator}`];
  const expected = conditionValueType(target);
  if (expected === null) return [["operator"], `only filled and empty apply to ${target.type} fields`];
  if (numericOperators.includes(operator) && expected !== "number")
    return [["operator"], `${operator} compares numbers: it applies to number and score fields`];
  if (operator === "between") {
    const [min, max] = Array.isArray(value) ? value : [];
    if (!Array.isArray(value) || value.length !== 2 || typeof min !== "number" || typeof max !== "number")
      return [["value"], "must be [min, max] for between"];
    return min > max ? [["value"], "min must not exceed max"] : null;
  }
  if (operator === "in" && !Array.isArray(value)) return [["value"], "must be a list for in"];
  if (operator !== "in" && Array.isArray(value))
    return [["value"], `must be a single value for ${operator}; use in for a list`];
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

/**
 * The fields with each answer list's options copied in: the list is the truth for every field
 * that names it, so the renderer, validation, scores, translations and FHIR read `options` alone.
 */
export function withOptionSets<S extends { fields: FormField[]; optionSets?: OptionSet[] }>(schema: S): S {
  if (!schema.optionSets?.length) return schema;
  const byId = new Map(schema.optionSets.map((set) => [set.id, set]));
  const fields = schema.fields.map((field) => {
    const set = "optionSet" in field && field.optionSet !== undefined ? byId.get(field.optionSet) : undefined;
    return set ? { ...field, options: set.options } : field;
  });
  return { ...schema, fields };
}

/** Problems of answer lists: duplicate or unknown ids, a choice field with neither options nor a list. */
function optionSetProblems(schema: { fields: FormField[]; optionSets?: OptionSet[] }): [(string | number)[], string][] {
  const problems: [(string | number)[], string][] = [];
  const ids = new Set<string>();
  (schema.optionSets ?? []).forEach((set, i) => {
    if (ids.has(set.id)) problems.push([["optionSets", i, "id"], `duplicate answer list id "${set.id}"`]);
    ids.add(set.id);
  });
  schema.fields.forEach((field, index) => {
    if (!("options" in field)) return;
    if (field.optionSet !== undefined) {
      if (!ids.has(field.optionSet))
        problems.push([["fields", index, "optionSet"], `refers to unknown answer list "${field.optionSet}"`]);
    } else if (field.options.length === 0)
      problems.push([["fields", index, "options"], "needs 1 to 500 options, or an answer list (optionSet)"]);
  });
  return problems;
}

/**
 * A template's schema as stored and answered: answer lists already copied into their fields. The
 * API's answers are described by it (a transform has no JSON schema of its output).
 */
export const storedTemplateSchema = z
  .strictObject({
    version: z.number({ message: "must be a number" }).finite(),
    fields: z.array(formField).max(500, { message: "at most 500 fields" }),
    /** Answer lists choice fields may name (`optionSet`) instead of listing their own options. */
    optionSets: z.array(optionSet).max(50, { message: "at most 50 answer lists" }).optional(),
    /** Whether the patient sees score fields' values and bands while filling in and afterwards; absent: true. */
    scoresShownToPatient: z.boolean({ message: "must be true or false" }).optional(),
    /**
     * Answers that need a clinician's attention: a chosen option of `field` with weight ≥ `minWeight`
     * flags the submission. References are checked by flagProblems (form-flags.ts).
     */
    flagged: z
      .array(z.strictObject({ field: fieldKey, minWeight: z.number({ message: "must be a number" }).finite() }))
      .max(50, { message: "at most 50 flagged answers" })
      .optional(),
  })
  .superRefine((written, ctx) => {
    for (const [path, message] of optionSetProblems(written)) ctx.addIssue({ code: "custom", path, message });
    // Conditions and scores are checked against the options the fields will have.
    const schema = withOptionSets(written);
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
/** A template's schema as written: each answer list's options are copied into the fields naming it. */
export const templateSchema = storedTemplateSchema.transform(withOptionSets);
export type TemplateSchema = z.infer<typeof templateSchema>;

export const emptyTemplateSchema: TemplateSchema = { version: 1, fields: [] };
