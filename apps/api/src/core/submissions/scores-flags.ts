import {
  chosenOptions,
  computeFlags,
  isChoiceField,
  optionWeightOf,
  type ChoiceField,
  type FormField,
  type TemplateSchema,
} from "@clinsign/contracts";
import { sql, submissions, type SQL } from "@clinsign/db";
import { answerFields } from "./answers";

/**
 * A stored submission's scores and flagged answers (issue 31), for the staff list, its filters
 * and the exports. Both follow from what the submission keeps, so neither needs a column of its
 * own: F10 stores each score the server computed under its field's key (`{score, band}`,
 * form-scores.ts) and keeps a copy of the template's schema, whose `flagged` rules name the
 * answers that need attention. A flag therefore follows the rules of the form version the patient
 * answered; changing a template's rules later changes no past submission.
 */

export interface StoredScore {
  key: string;
  label: string;
  score: number;
  band: string | null;
}

/** The submission's scores in form order, under their labels; a score field without a stored score is left out. */
export function storedScores(schema: { fields: unknown[] }, values: Record<string, unknown>): StoredScore[] {
  return answerFields(schema).flatMap((field) => {
    const value = values[field.key] as { score?: unknown; band?: unknown } | null | undefined;
    if (field.type !== "score" || !value || typeof value !== "object" || typeof value.score !== "number") return [];
    return [
      {
        key: field.key,
        label: field.label,
        score: value.score,
        band: typeof value.band === "string" ? value.band : null,
      },
    ];
  });
}

/** The answers that flag the submission (computeFlags over the schema it was submitted with), under their labels. */
export function storedFlags(
  schema: { fields: unknown[] },
  values: Record<string, unknown>,
): Array<{ key: string; label: string }> {
  const keys = computeFlags(schema as TemplateSchema, values);
  if (keys.length === 0) return [];
  const labels = new Map(answerFields(schema).map((f) => [f.key, f.label]));
  return keys.map((key) => ({ key, label: labels.get(key) ?? key }));
}

/** A jsonb array of the stored schema, or an empty one where it has none. */
const arrayOf = (value: SQL) => sql`(case when jsonb_typeof(${value}) = 'array' then ${value} else '[]'::jsonb end)`;

/**
 * "The submission is flagged", asked of the stored row: computeFlags in SQL (a test holds the two
 * to the same answers). A rule of `template_schema.flagged` names a choice field; a chosen option
 * of it (the stored value, or one element of a multiselect's array) whose numeric weight is at
 * least the rule's `minWeight` raises it.
 */
export function flaggedCondition(): SQL {
  const schema = submissions.templateSchema;
  const answer = sql`${submissions.values} -> (rule ->> 'field')`;
  return sql`exists (
    select 1
    from jsonb_array_elements(${arrayOf(sql`${schema} -> 'flagged'`)}) as rule
    join jsonb_array_elements(${arrayOf(sql`${schema} -> 'fields'`)}) as field on field ->> 'key' = rule ->> 'field'
    cross join jsonb_array_elements(${arrayOf(sql`field -> 'options'`)}) as option
    where field ->> 'type' in ('select', 'radio', 'multiselect')
      and jsonb_typeof(option) = 'object'
      and jsonb_typeof(option -> 'weight') = 'number'
      and jsonb_typeof(rule -> 'minWeight') = 'number'
      and (option ->> 'weight')::numeric >= (rule ->> 'minWeight')::numeric
      and (${answer} = option -> 'value'
        or (jsonb_typeof(${answer}) = 'array' and ${answer} @> jsonb_build_array(option -> 'value')))
  )`;
}

/** "Some score of the submission is at least `min`": a score field of its schema whose stored score reaches it. */
export function minScoreCondition(min: number): SQL {
  const score = sql`${submissions.values} -> (field ->> 'key') -> 'score'`;
  return sql`exists (
    select 1
    from jsonb_array_elements(${arrayOf(sql`${submissions.templateSchema} -> 'fields'`)}) as field
    where field ->> 'type' = 'score'
      and jsonb_typeof(${score}) = 'number'
      and (${score})::text::numeric >= ${String(min)}::numeric
  )`;
}

/**
 * A choice answer as codes (the CSV's "value" and "weight" columns): the stored option value (a
 * multiselect's values joined by "; ") and the chosen options' weight (a multiselect's summed, as
 * a score adds them); weight null where no chosen option of the submission's form has one.
 */
export function choiceCodes(field: unknown, value: unknown): { value: string | null; weight: number | null } {
  if (value === undefined || value === null) return { value: null, weight: null };
  const text = Array.isArray(value) ? value.map(String).join("; ") : String(value);
  if (!isChoiceField(field as FormField)) return { value: text, weight: null };
  const weights = chosenOptions(field as ChoiceField, value)
    .map(optionWeightOf)
    .filter((w): w is number => w !== undefined);
  return { value: text, weight: weights.length > 0 ? weights.reduce((a, b) => a + b, 0) : null };
}

/** Whether a stored field's options carry weights (its CSV gets a "weight" column). */
export const hasWeights = (field: { options?: unknown }): boolean =>
  Array.isArray(field.options) &&
  field.options.some((o) => !!o && typeof o === "object" && typeof (o as { weight?: unknown }).weight === "number");

/** "The submission's form has flag rules": a CSV with such a submission gets the flag column. */
export const hasFlagRules = () =>
  sql`jsonb_array_length(${arrayOf(sql`${submissions.templateSchema} -> 'flagged'`)}) > 0`;
