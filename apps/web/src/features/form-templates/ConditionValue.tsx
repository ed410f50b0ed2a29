"use client";

import { type FieldCondition, type FormField } from "@clinsign/contracts";
import { SelectField } from "@clinsign/ui";
import { useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { optionsOf } from "./builder-model";
import styles from "./builder.module.css";

/** What a condition's value editor gets: the condition, the field it names, its position. */
interface ValueProps {
  condition: FieldCondition;
  target: FormField | undefined;
  n: number;
  onChange(value: FieldCondition["value"]): void;
}

/**
 * A condition's value, picked from what its field can hold: yes or no, its options (several for
 * "is one of"), a range, or a typed value.
 */
export function ConditionValue({ condition, target, n, onChange }: ValueProps) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const label = `${b.conditionValue} ${n}`;
  const options = optionsOf(target);
  if (target?.type === "checkbox") {
    return (
      <SelectField
        label={label}
        hideLabel
        options={[
          { value: "true", label: b.yes },
          { value: "false", label: b.no },
        ]}
        value={String(condition.value === true)}
        onChange={(event) => onChange(event.target.value === "true")}
      />
    );
  }
  if (options.length > 0 && condition.operator === "in") {
    const chosen = new Set((Array.isArray(condition.value) ? condition.value : []).map(String));
    return (
      <fieldset className={styles.valueChoices}>
        <legend className="cs-visually-hidden">{label}</legend>
        {options.map((option) => (
          <label key={option.value} className={styles.check}>
            <input
              type="checkbox"
              checked={chosen.has(option.value)}
              onChange={(event) => {
                const next = new Set(chosen);
                if (event.target.checked) next.add(option.value);
                else next.delete(option.value);
                // The stored values keep the options' order.
                onChange(options.map((o) => o.value).filter((v) => next.has(v)));
              }}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </fieldset>
    );
  }
  if (options.length > 0) {
    return (
      <SelectField
        label={label}
        hideLabel
        options={options}
        value={String(condition.value ?? "")}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  if (condition.operator === "between")
    return <RangeValue condition={condition} target={target} n={n} onChange={onChange} />;
  const numeric = target?.type === "number" || target?.type === "score";
  return (
    <TypedValue
      condition={condition}
      numeric={numeric}
      label={label}
      hint={b.conditionValuesHint}
      onChange={onChange}
    />
  );
}

/** From–to for `between`; on a score with bands, a band fills both. */
function RangeValue({ condition, target, n, onChange }: ValueProps) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const [min, max] = (Array.isArray(condition.value) ? condition.value : [0, 0]) as number[];
  const [text, setText] = useState({ min: String(min ?? 0), max: String(max ?? 0) });
  const bands = target?.type === "score" ? (target.bands ?? []) : [];
  const set = (next: { min: string; max: string }) => {
    setText(next);
    const from = Number(next.min);
    const to = Number(next.max);
    if (next.min.trim() !== "" && next.max.trim() !== "" && Number.isFinite(from) && Number.isFinite(to))
      onChange([from, to]);
  };
  const band = bands.findIndex((band) => band.min === min && band.max === max);
  return (
    <span className={styles.range}>
      {bands.length > 0 ? (
        <SelectField
          label={format(b.conditionBand, { n })}
          hideLabel
          value={band === -1 ? "" : String(band)}
          options={[
            { value: "", label: b.conditionBandCustom },
            ...bands.map((band, i) => ({ value: String(i), label: `${band.label} (${band.min}–${band.max})` })),
          ]}
          onChange={(event) => {
            const chosen = bands[Number(event.target.value)];
            if (event.target.value !== "" && chosen) set({ min: String(chosen.min), max: String(chosen.max) });
          }}
        />
      ) : null}
      <input
        className="cs-input"
        inputMode="decimal"
        aria-label={format(b.conditionFrom, { n })}
        value={text.min}
        onChange={(event) => set({ ...text, min: event.target.value })}
      />
      <input
        className="cs-input"
        inputMode="decimal"
        aria-label={format(b.conditionTo, { n })}
        value={text.max}
        onChange={(event) => set({ ...text, max: event.target.value })}
      />
    </span>
  );
}

/** A typed value ("a, b" for "is one of" on a text field): the text as typed stays, the value follows it. */
function TypedValue({
  condition,
  numeric,
  label,
  hint,
  onChange,
}: {
  condition: FieldCondition;
  numeric: boolean;
  label: string;
  hint: string;
  onChange(value: FieldCondition["value"]): void;
}) {
  const [text, setText] = useState(() =>
    Array.isArray(condition.value)
      ? condition.value.join(", ")
      : condition.value === undefined
        ? ""
        : String(condition.value),
  );
  return (
    <input
      className="cs-input"
      aria-label={label}
      title={condition.operator === "in" ? hint : undefined}
      placeholder={condition.operator === "in" ? hint : undefined}
      inputMode={numeric ? "decimal" : undefined}
      value={text}
      onChange={(event) => {
        const raw = event.target.value;
        setText(raw);
        const parse = (part: string) =>
          numeric && part.trim() !== "" && Number.isFinite(Number(part)) ? Number(part) : part.trim();
        onChange(
          condition.operator === "in"
            ? raw
                .split(",")
                .map(parse)
                .filter((part) => part !== "")
            : parse(raw),
        );
      }}
    />
  );
}
