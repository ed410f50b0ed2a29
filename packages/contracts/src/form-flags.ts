/**
 * Answers that need a clinician's attention (issue 31): PHQ-9's item 9 (thoughts of self-harm)
 * answered with anything but "Not at all", whatever the total. A template lists them in
 * `schema.flagged`: `{field, minWeight}` flags a submission whose chosen option of `field` (any
 * chosen option of a multiselect) has a weight of at least `minWeight`.
 *
 * One computation for the server's list and exports (`computeFlags`) and one check of the
 * references for template create/update (`flagProblems`, a 400 naming each entry). Dependency-free
 * like form-scores.ts. The staff list's "flagged only" filter asks the same question of the stored
 * submission in SQL (core/submissions/submission-reads.ts); a test holds the two to the same answers.
 */
import type { FormField, TemplateSchema } from "./template-schema";

export type ChoiceField = Extract<FormField, { type: "select" | "radio" | "multiselect" }>;
type Option = ChoiceField["options"][number];

/** A template's flag rules (`schema.flagged`). */
export type FlagRule = NonNullable<TemplateSchema["flagged"]>[number];

const CHOICE_TYPES: ReadonlySet<string> = new Set(["select", "radio", "multiselect"]);

export const isChoiceField = (field: FormField | undefined): field is ChoiceField =>
  field !== undefined && CHOICE_TYPES.has(field.type);

const valueOf = (option: Option) => (typeof option === "string" ? option : option.value);

/**
 * The chosen options of a choice answer (one for select and radio, each of a multiselect), as
 * the field defines them; values the field has no option for are left out.
 */
export function chosenOptions(field: ChoiceField, value: unknown): Option[] {
  const chosen = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return chosen.flatMap((v) => field.options.filter((option) => valueOf(option) === v));
}

/** The weight of an option; undefined for one without a weight (a plain string option has none). */
export const optionWeightOf = (option: Option): number | undefined =>
  typeof option === "string" ? undefined : option.weight;

/** The keys of the fields whose answers in `values` flag the submission, in the order of `schema.flagged`. */
export function computeFlags(schema: TemplateSchema, values: Record<string, unknown>): string[] {
  const rules = schema.flagged ?? [];
  if (rules.length === 0) return [];
  const flagged: string[] = [];
  for (const rule of rules) {
    if (flagged.includes(rule.field)) continue;
    const field = schema.fields.find((f) => f.key === rule.field);
    if (!isChoiceField(field)) continue;
    const raised = chosenOptions(field, values[rule.field]).some((option) => {
      const weight = optionWeightOf(option);
      return weight !== undefined && weight >= rule.minWeight;
    });
    if (raised) flagged.push(rule.field);
  }
  return flagged;
}

/** One problem of `schema.flagged`: `path` below the schema (e.g. `["flagged", 0, "field"]`). */
export interface FlagProblem {
  path: (string | number)[];
  message: string;
}

/**
 * What is wrong with a template's flag rules: a field that does not exist or is no choice field
 * (select, radio, multiselect), a field listed twice, or a rule no option can ever raise (no
 * option of the field weighs `minWeight` or more). Empty when all is well.
 */
export function flagProblems(schema: TemplateSchema): FlagProblem[] {
  const problems: FlagProblem[] = [];
  const seen = new Set<string>();
  (schema.flagged ?? []).forEach((rule, i) => {
    const field = schema.fields.find((f) => f.key === rule.field);
    if (!field) {
      problems.push({ path: ["flagged", i, "field"], message: `no field has the key "${rule.field}"` });
    } else if (!isChoiceField(field)) {
      problems.push({
        path: ["flagged", i, "field"],
        message: `"${rule.field}" is a ${field.type} field; only select, radio and multiselect answers can be flagged`,
      });
    } else if (seen.has(rule.field)) {
      problems.push({ path: ["flagged", i, "field"], message: `"${rule.field}" is listed twice` });
    } else if (!field.options.some((option) => (optionWeightOf(option) ?? -Infinity) >= rule.minWeight)) {
      problems.push({
        path: ["flagged", i, "minWeight"],
        message: `no option of "${rule.field}" has a weight of ${rule.minWeight} or more, so it never flags`,
      });
    }
    seen.add(rule.field);
  });
  return problems;
}

/** Whether the patient sees score fields (their sums and bands): unless the template says false. */
export const scoresShownToPatient = (schema: Pick<TemplateSchema, "scoresShownToPatient">): boolean =>
  schema.scoresShownToPatient !== false;

/** The flag rule of field `key`, if the template has one. */
export const flagRuleOf = (schema: TemplateSchema, key: string | undefined): FlagRule | undefined =>
  key === undefined ? undefined : schema.flagged?.find((rule) => rule.field === key);

/** The schema with `flagged` as given, or without the property when the list is empty. */
function withRules(schema: TemplateSchema, rules: FlagRule[]): TemplateSchema {
  const { flagged: _previous, ...rest } = schema;
  return rules.length > 0 ? { ...rest, flagged: rules } : rest;
}

/** The builder's edit of one field's rule: `minWeight` sets it (in place, or appended), null removes it. */
export function setFlagRule(schema: TemplateSchema, key: string, minWeight: number | null): TemplateSchema {
  const rules = schema.flagged ?? [];
  if (minWeight === null)
    return withRules(
      schema,
      rules.filter((rule) => rule.field !== key),
    );
  const at = rules.findIndex((rule) => rule.field === key);
  return withRules(
    schema,
    at === -1
      ? [...rules, { field: key, minWeight }]
      : rules.map((rule, i) => (i === at ? { ...rule, minWeight } : rule)),
  );
}

/**
 * The rules after a field's key changed (`to`) or the field went (`to` undefined), so a builder
 * edit never leaves a rule naming a key that no longer exists (which saving would refuse).
 */
export function renameFlagRules(schema: TemplateSchema, from: string, to: string | undefined): TemplateSchema {
  if (!schema.flagged?.some((rule) => rule.field === from)) return schema;
  return withRules(
    schema,
    to === undefined
      ? schema.flagged.filter((rule) => rule.field !== from)
      : schema.flagged.map((rule) => (rule.field === from ? { ...rule, field: to } : rule)),
  );
}
