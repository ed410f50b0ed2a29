/**
 * Scored questionnaires (PHQ-9, GAD-7): the one computation of a `score` field, shared by the
 * form renderer (shown live, read-only) and the server (recomputed at submit, whatever the
 * client sent). Dependency-free like form-conditions.ts, so patient pages have it on first render.
 *
 * A score is the sum of the weights of the options chosen in its source fields (a multiselect
 * adds every chosen option's weight; an option without a weight adds 0), and its band is the
 * first band whose min..max (both included) holds the sum. It exists only once every visible
 * source field is answered: a partial PHQ-9 sum is not a PHQ-9 score. Source fields hidden by
 * their conditions do not count. In FHIR terms (issue 18), the weights are `itemWeight` on
 * `answerOption` and the score item's `calculatedExpression` is the sum of `weight()` over the
 * answers of `sources`.
 */
import { isBlankValue } from "./form-values";
import type { FormField, ScoreBand, TemplateSchema } from "./template-schema";

export type ScoreField = Extract<FormField, { type: "score" }>;

/** What a submission stores under a score field's key (and webhooks, exports and PDFs carry). */
export interface ScoreValue {
  score: number;
  /** The label of the band the score falls into; null when the field has no band for it. */
  band: string | null;
}

/** A score field's state while a form is filled in. */
export interface ScoreState {
  /** Null until every visible source field is answered. */
  value: ScoreValue | null;
  answered: number;
  total: number;
}

type Option = string | { value: string; label: string; weight?: number };

/** The weight of one chosen option value; 0 for an option without a weight or not of the field. */
function weightOf(options: readonly Option[], chosen: unknown): number {
  const option = options.find((o) => (typeof o === "string" ? o : o.value) === chosen);
  return option !== undefined && typeof option !== "string" ? (option.weight ?? 0) : 0;
}

/** The band of a score, by its field's bands; null when none holds it. */
export function scoreBandOf(bands: readonly ScoreBand[] | undefined, score: number): string | null {
  return bands?.find((band) => band.min <= score && score <= band.max)?.label ?? null;
}

/**
 * A score field's sum and band from the values of a form; `visible` holds the keys of the visible
 * fields before it. evaluateForm (form-conditions.ts) gives every score of a form.
 */
export function computeScore(
  schema: TemplateSchema,
  field: ScoreField,
  values: Record<string, unknown>,
  visible: ReadonlySet<string>,
): ScoreState {
  let score = 0;
  let answered = 0;
  let total = 0;
  for (const key of field.sources) {
    const source = schema.fields.find((f) => f.key === key);
    if (!source || !("options" in source) || !visible.has(key)) continue;
    total += 1;
    const value = values[key];
    if (isBlankValue(value)) continue;
    answered += 1;
    for (const chosen of Array.isArray(value) ? value : [value]) score += weightOf(source.options, chosen);
  }
  if (answered < total || total === 0) return { value: null, answered, total };
  return { value: { score, band: scoreBandOf(field.bands, score) }, answered, total };
}
