"use client";

import { Button, Icon } from "@clinsign/ui";
import { useEffect, useId, useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { optionRows, optionsFromRows, parseWeight, withRowLabel, type OptionRow } from "./builder-model";
import styles from "./builder.module.css";
import { ToolButton } from "./ToolButton";

type Options = ReturnType<typeof optionsFromRows>;

/**
 * The options of a choice field or an answer list, one row each: what patients read, the value
 * that is stored (it follows the label until typed), and the weight a score adds. Rows keep what
 * was typed (a weight "1," halfway); the options follow them. Remount (`key`) to load others.
 */
export function OptionRows({
  options,
  problem,
  disabled = false,
  onChange,
}: {
  options: Options;
  problem?: string;
  disabled?: boolean;
  onChange(options: Options): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const id = useId();
  const [rows, setRows] = useState<OptionRow[]>(() => optionRows(options));
  // A row just added gets the focus, so typing goes on from the keyboard.
  const [added, setAdded] = useState<number | null>(null);
  useEffect(() => {
    if (added !== null) document.getElementById(`${id}-label-${added}`)?.focus();
  }, [added, id]);
  const update = (next: OptionRow[]) => {
    setRows(next);
    onChange(optionsFromRows(next));
  };
  const move = (from: number, to: number) => {
    const next = [...rows];
    const [row] = next.splice(from, 1);
    next.splice(to, 0, row!);
    update(next);
  };

  return (
    <fieldset className={styles.optionRows} aria-describedby={`${id}-hint`} disabled={disabled}>
      <legend className="cs-label">{b.options}</legend>
      <span id={`${id}-hint`} className="cs-hint">
        {b.optionRowsHint}
      </span>
      <div className={styles.optionHead} aria-hidden="true">
        <span>{b.optionLabel}</span>
        <span>{b.optionValue}</span>
        <span>{b.optionWeight}</span>
      </div>
      <ol className={styles.optionList}>
        {rows.map((row, i) => (
          <OptionRowItem
            key={i}
            row={row}
            index={i}
            last={i === rows.length - 1}
            idPrefix={id}
            onChange={(next) => update(rows.map((r, j) => (j === i ? next : r)))}
            onMove={(to) => move(i, to)}
            onRemove={() => update(rows.filter((_, j) => j !== i))}
          />
        ))}
      </ol>
      <div>
        <Button
          size="small"
          onClick={() => {
            update([...rows, { label: "", value: "", weight: "" }]);
            setAdded(rows.length);
          }}
          aria-describedby={problem ? `${id}-problem` : undefined}
        >
          {b.optionAdd}
        </Button>
      </div>
      {problem ? (
        <span id={`${id}-problem`} className="cs-field-error">
          {problem}
        </span>
      ) : null}
    </fieldset>
  );
}

/** One option: its label, value and weight inputs, its move and remove buttons, a weight's problem. */
function OptionRowItem({
  row,
  index: i,
  last,
  idPrefix: id,
  onChange,
  onMove,
  onRemove,
}: {
  row: OptionRow;
  index: number;
  last: boolean;
  /** The option list's id: the row's label input and weight problem are named from it. */
  idPrefix: string;
  onChange(row: OptionRow): void;
  onMove(to: number): void;
  onRemove(): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const n = i + 1;
  const weightProblem = row.weight.trim() !== "" && parseWeight(row.weight) === undefined;
  return (
    <li className={styles.optionRow}>
      <input
        id={`${id}-label-${i}`}
        className="cs-input"
        aria-label={format(b.optionLabelOf, { n })}
        value={row.label}
        onChange={(event) => onChange(withRowLabel(row, event.target.value))}
      />
      <input
        className={`cs-input ${styles.mono}`}
        aria-label={format(b.optionValueOf, { n })}
        value={row.value}
        onChange={(event) => onChange({ ...row, value: event.target.value })}
      />
      <input
        className="cs-input"
        aria-label={format(b.optionWeightOf, { n })}
        inputMode="decimal"
        value={row.weight}
        aria-invalid={weightProblem ? true : undefined}
        aria-describedby={weightProblem ? `${id}-weight-${i}` : undefined}
        onChange={(event) => onChange({ ...row, weight: event.target.value })}
      />
      <span className={styles.optionTools}>
        <ToolButton
          label={format(b.optionMoveUp, { n })}
          title={b.moveUp}
          disabled={i === 0}
          onClick={() => onMove(i - 1)}
        >
          <span aria-hidden="true">↑</span>
        </ToolButton>
        <ToolButton
          label={format(b.optionMoveDown, { n })}
          title={b.moveDown}
          disabled={last}
          onClick={() => onMove(i + 1)}
        >
          <span aria-hidden="true">↓</span>
        </ToolButton>
        <ToolButton label={format(b.optionRemove, { n })} title={b.remove} onClick={onRemove}>
          <Icon name="trash" />
        </ToolButton>
      </span>
      {weightProblem ? (
        <span id={`${id}-weight-${i}`} className={`cs-field-error ${styles.optionProblem}`}>
          {format(b.optionWeightInvalid, { n })}
        </span>
      ) : null}
    </li>
  );
}
