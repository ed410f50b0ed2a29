"use client";

import { type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Button, Field, TextField } from "@clinsign/ui";

import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { nextBand, optionalNumber, scoreSourceCandidates, type Band } from "./builder-model";
import { FieldCodeEditor } from "./FieldCodeEditor";
import styles from "./builder.module.css";

/**
 * A score field: which earlier choice fields it sums (their options' weights are edited with
 * the options) and the bands that name its ranges.
 */
export function ScoreEditor({
  field,
  index,
  schema,
  problems,
  onChange,
}: {
  field: Extract<FormField, { type: "score" }>;
  index: number;
  schema: TemplateSchema;
  problems: Record<string, string>;
  onChange(field: FormField): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const candidates = scoreSourceCandidates(schema.fields, index);
  const toggle = (key: string, on: boolean) => {
    // Sources keep the order of the form.
    const chosen = new Set(field.sources);
    if (on) chosen.add(key);
    else chosen.delete(key);
    onChange({ ...field, sources: candidates.map((f) => f.key!).filter((k) => chosen.has(k)) });
  };
  return (
    <>
      <Field
        layout="group"
        className={styles.fileTypes}
        label={b.scoreSources}
        hint={candidates.length > 0 ? b.scoreSourcesHint : b.scoreNoSources}
        error={problems.sources}
      >
        {() => (
          <div className={styles.fileTypeList}>
            {candidates.map((candidate) => (
              <label key={candidate.id} className={styles.check}>
                <input
                  type="checkbox"
                  checked={field.sources.includes(candidate.key!)}
                  onChange={(event) => toggle(candidate.key!, event.target.checked)}
                />
                <span>{candidate.label || candidate.key}</span>
              </label>
            ))}
          </div>
        )}
      </Field>
      <ScoreBands field={field} error={problems.bands} onChange={onChange} />
      <FieldCodeEditor field={field} error={problems.code} onChange={onChange} />
    </>
  );
}

/** The score's bands: each names a range of the sum ("mild", "severe"). */
function ScoreBands({
  field,
  error,
  onChange,
}: {
  field: Extract<FormField, { type: "score" }>;
  error: string | undefined;
  onChange(field: FormField): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const bands = field.bands ?? [];
  const setBands = (next: Band[]) => {
    const { bands: _previous, ...rest } = field;
    onChange(next.length > 0 ? { ...rest, bands: next } : rest);
  };
  const setBand = (i: number, patch: Partial<Band>) =>
    setBands(bands.map((band, j) => (j === i ? { ...band, ...patch } : band)));
  return (
    <Field layout="group" className={styles.condition} label={b.scoreBands} hint={b.scoreBandsHint} error={error}>
      {() => (
        <>
          {bands.map((band, i) => (
            <div key={i} className={styles.conditionRow}>
              <TextField
                label={format(b.bandMin, { n: i + 1 })}
                inputMode="decimal"
                value={String(band.min)}
                onChange={(event) => setBand(i, { min: optionalNumber(event.target.value) ?? 0 })}
              />
              <TextField
                label={format(b.bandMax, { n: i + 1 })}
                inputMode="decimal"
                value={String(band.max)}
                onChange={(event) => setBand(i, { max: optionalNumber(event.target.value) ?? 0 })}
              />
              <TextField
                label={format(b.bandLabel, { n: i + 1 })}
                value={band.label}
                onChange={(event) => setBand(i, { label: event.target.value })}
              />
              <Button size="small" variant="ghost" onClick={() => setBands(bands.filter((_, j) => j !== i))}>
                {format(b.bandRemove, { n: i + 1 })}
              </Button>
            </div>
          ))}
          <div>
            <Button size="small" onClick={() => setBands([...bands, nextBand(bands)])}>
              {b.bandAdd}
            </Button>
          </div>
        </>
      )}
    </Field>
  );
}
