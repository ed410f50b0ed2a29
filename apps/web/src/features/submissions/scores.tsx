"use client";

import type { SubmissionListItem } from "@clinsign/contracts";
import { Icon, SelectField, TextField, type TableColumn } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import type { ChangeEvent } from "react";
import { format, type Dictionary } from "../../i18n";
import { useTRPC } from "../../trpc/client";
import pageStyles from "./submissions.module.css";

type Texts = Dictionary["submissionsPage"];

/**
 * Scored questionnaires in the submissions list (issue 31): one "Score" column with each
 * submission's scores and, under them, a marker for answers that need attention (form-flags.ts).
 * It appears once a listed submission has a score or a flag (clinics without questionnaires keep
 * their list as it was) and then takes the place of the answer count: a table of eight columns
 * no longer fits beside the console's navigation at 1280px, and a scored form's count says little.
 */
export function scoreColumn(items: readonly SubmissionListItem[], s: Texts): TableColumn<SubmissionListItem> | null {
  if (!items.some((item) => item.scores.length > 0 || item.flagged.length > 0)) return null;
  return {
    key: "score",
    header: s.columnScore,
    render: (row) =>
      row.scores.length === 0 && row.flagged.length === 0 ? (
        "–"
      ) : (
        <span className={pageStyles.scores}>
          <Scores row={row} />
          <Attention row={row} s={s} />
        </span>
      ),
  };
}

function Scores({ row }: { row: SubmissionListItem }) {
  return row.scores.map((item) => (
    <span key={item.key}>
      {row.scores.length > 1 ? `${item.label}: ` : null}
      <strong className={pageStyles.scoreValue}>{item.score}</strong>
      {item.band ? <span className="cs-hint"> {item.band}</span> : null}
    </span>
  ));
}

/**
 * The marker of a submission with answers that need attention: words, not only a colour; the
 * items follow for screen readers and on hover ("Needs attention: 9. Thoughts that…").
 */
function Attention({ row, s }: { row: SubmissionListItem; s: Texts }) {
  if (row.flagged.length === 0) return null;
  const items = row.flagged.map((f) => f.label).join("; ");
  return (
    <span className={pageStyles.attention} title={format(s.needsAttentionItems, { items })}>
      <Icon name="alert" /> {s.needsAttention}
      <span className="cs-visually-hidden">: {items}</span>
    </span>
  );
}

/**
 * The filter fields: "answers needing attention" (all / only those) and "score at least". With a
 * form chosen whose scores have bands, the score bound is picked by band ("10 or more
 * (Moderate)"); otherwise it is a number. A bound from the URL that is no band's stays selectable.
 */
export function ScoreFilters({
  s,
  templateIdentifier,
  flagged,
  minScore,
}: {
  s: Texts;
  templateIdentifier: string;
  flagged: { value: string; onChange(event: ChangeEvent<HTMLInputElement | HTMLSelectElement>): void };
  minScore: { value: string; onChange(event: ChangeEvent<HTMLInputElement | HTMLSelectElement>): void };
}) {
  const trpc = useTRPC();
  const { data: template } = useQuery({
    ...trpc.templates.get.queryOptions({ identifier: templateIdentifier, activeOnly: false }),
    enabled: templateIdentifier !== "",
  });
  const bands = new Map<number, string[]>();
  if (templateIdentifier !== "")
    for (const field of template?.schema.fields ?? [])
      if (field.type === "score")
        for (const band of field.bands ?? []) bands.set(band.min, [...(bands.get(band.min) ?? []), band.label]);
  return (
    <>
      <SelectField
        id="filter-flagged"
        label={s.flaggedFilter}
        placeholder={s.flaggedAll}
        options={[{ value: "1", label: s.flaggedOnly }]}
        {...flagged}
      />
      {bands.size > 0 ? (
        <SelectField
          id="filter-min-score"
          label={s.minScore}
          placeholder={s.anyScore}
          options={[...bands]
            .sort(([a], [b]) => a - b)
            .map(([min, labels]) => ({
              value: String(min),
              label: format(s.bandFrom, { min, band: [...new Set(labels)].join(" / ") }),
            }))}
          keepUnknownValue
          {...minScore}
        />
      ) : (
        <TextField
          id="filter-min-score"
          label={s.minScore}
          type="number"
          inputMode="decimal"
          step="any"
          {...minScore}
        />
      )}
    </>
  );
}

/** The list query's part of the URL filters: `flagged=1`, `minScore=10` (a number; anything else is no filter). */
export function scoreFilter(values: { flagged: string; minScore: string }): { flagged?: true; minScore?: number } {
  const min = values.minScore.trim() === "" ? Number.NaN : Number(values.minScore);
  return {
    ...(values.flagged === "1" && { flagged: true as const }),
    ...(Number.isFinite(min) && Math.abs(min) <= 1_000_000 && { minScore: min }),
  };
}
