"use client";

import type { FormField } from "@clinsign/contracts";
import type { ScoreState } from "@clinsign/contracts/form-scores";
import { cx } from "../cx";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

/**
 * A score field: read-only, its sum and band as the answers change (the renderer computes it
 * with form-scores.ts; the server computes it again at submit). Announced politely.
 */
export function ScoreOutput({
  field,
  id,
  state,
  labels,
}: {
  field: Extract<FormField, { type: "score" }>;
  /** The output's id (fieldControlId of the field's key). */
  id: string;
  state: ScoreState | undefined;
  labels: FormRendererLabels;
}) {
  const fill = (text: string, params: Record<string, string | number>) =>
    text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ""));
  const value = state?.value;
  return (
    <div className={cx(styles.field, styles.score)} data-field-key={field.key} data-field-type="score">
      <span id={`${id}-label`} className={styles.scoreLabel}>
        {field.label}
      </span>
      <output id={id} aria-labelledby={`${id}-label`} aria-live="polite" className={styles.scoreValue}>
        {value ? (
          <>
            <strong>{fill(labels.score.points, { score: value.score })}</strong>{" "}
            {value.band ? <span className={styles.scoreBand}>{value.band}</span> : null}
          </>
        ) : (
          <span className={styles.scorePending}>
            {fill(labels.score.incomplete, { answered: state?.answered ?? 0, total: state?.total ?? 0 })}
          </span>
        )}
      </output>
      {field.helpText ? <p className={styles.scoreHint}>{field.helpText}</p> : null}
    </div>
  );
}
