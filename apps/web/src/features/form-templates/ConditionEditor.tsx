"use client";

import { type FieldCondition, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Button, SelectField } from "@clinsign/ui";
import { useId, useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { conditionTargets, operatorsFor, type FieldType, type When } from "./builder-model";
import styles from "./builder.module.css";

type Builder = Dictionary["formTemplates"]["builder"];
type Operator = FieldCondition["operator"];

function conditionList(when: When | undefined): { mode: "all" | "any"; conditions: FieldCondition[] } {
  if (!when) return { mode: "all", conditions: [] };
  if ("all" in when) return { mode: "all", conditions: when.all };
  if ("any" in when) return { mode: "any", conditions: when.any };
  return { mode: "all", conditions: [when] };
}

function toWhen(mode: "all" | "any", conditions: FieldCondition[]): When | undefined {
  if (conditions.length === 0) return undefined;
  if (conditions.length === 1 && mode === "all") return conditions[0]!;
  return mode === "all" ? { all: conditions } : { any: conditions };
}

const operatorLabel = (operator: Operator, b: Builder) =>
  ({
    equals: b.operatorEquals,
    notEquals: b.operatorNotEquals,
    in: b.operatorIn,
    filled: b.operatorFilled,
    empty: b.operatorEmpty,
    atLeast: b.operatorAtLeast,
    atMost: b.operatorAtMost,
    between: b.operatorBetween,
  })[operator];

type Option = { value: string; label: string };
const optionsOf = (field: FormField | undefined): Option[] =>
  field && "options" in field
    ? field.options.map((o) => (typeof o === "string" ? { value: o, label: o } : { value: o.value, label: o.label }))
    : [];

/** A condition's value in words: option labels instead of stored values, "10–14" for a range. */
function valueInWords(c: FieldCondition, target: FormField | undefined, b: Builder): string {
  if (c.value === undefined) return "";
  if (typeof c.value === "boolean") return c.value ? b.yes : b.no;
  if (c.operator === "between" && Array.isArray(c.value)) return `${c.value[0]}–${c.value[1]}`;
  const labels = new Map(optionsOf(target).map((o) => [o.value, o.label]));
  const word = (v: string | number) => labels.get(String(v)) ?? String(v);
  return Array.isArray(c.value) ? c.value.map(word).join(", ") : word(c.value);
}

/** A condition in words, for the field list ("Smoker is Yes"). */
export function describeCondition(when: When, schema: TemplateSchema, b: Builder): string {
  const { mode, conditions } = conditionList(when);
  const byKey = new Map(schema.fields.map((f) => [f.key, f]));
  const one = (c: FieldCondition) =>
    [byKey.get(c.field)?.label || c.field, operatorLabel(c.operator, b), valueInWords(c, byKey.get(c.field), b)]
      .filter(Boolean)
      .join(" ");
  return conditions.map(one).join(mode === "all" ? " · " : " | ");
}

/** The value a condition starts with when its operator is chosen. */
function startValue(operator: Operator, target: FormField | undefined): FieldCondition["value"] {
  if (operator === "filled" || operator === "empty") return undefined;
  if (operator === "in") return [];
  const band = target?.type === "score" ? target.bands?.[0] : undefined;
  if (operator === "between") return band ? [band.min, band.max] : [0, 0];
  if (operator === "atLeast" || operator === "atMost") return band ? band.min : 0;
  if (target?.type === "checkbox") return true;
  if (target?.type === "number" || target?.type === "score") return 0;
  return optionsOf(target)[0]?.value ?? "";
}

/**
 * "Show this field only when…": an earlier field (a score too), an operator that fits it, and a
 * value picked from what that field can hold: its options, yes or no, a number, a score's band.
 */
export function ConditionEditor({
  field,
  index,
  schema,
  problem,
  onChange,
}: {
  field: FormField;
  index: number;
  schema: TemplateSchema;
  problem?: string;
  onChange(when: When | undefined): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const { mode, conditions } = conditionList(field.visibleWhen);
  const earlier = conditionTargets(schema.fields, index);
  const id = useId();

  const update = (next: FieldCondition[], nextMode = mode) => onChange(toWhen(nextMode, next));
  const blank = (): FieldCondition => ({ field: earlier[earlier.length - 1]!.key!, operator: "filled" });

  return (
    <fieldset className={styles.condition}>
      <legend className="cs-label">{b.conditionToggle}</legend>
      {earlier.length === 0 ? <p className="cs-hint">{b.conditionNoEarlier}</p> : null}
      {conditions.length > 1 ? (
        <SelectField
          label={b.conditionToggle}
          hideLabel
          options={[
            { value: "all", label: b.conditionAll },
            { value: "any", label: b.conditionAny },
          ]}
          value={mode}
          onChange={(event) => update(conditions, event.target.value as "all" | "any")}
        />
      ) : null}
      {conditions.map((condition, i) => {
        const target = schema.fields.find((f) => f.key === condition.field);
        const set = (next: FieldCondition) => update(conditions.map((c, j) => (j === i ? next : c)));
        const operators = operatorsFor(target?.type as FieldType | undefined);
        // A stored operator this builder no longer offers for the field (from an import) still shows.
        if (!operators.includes(condition.operator)) operators.push(condition.operator);
        return (
          <div key={i} className={styles.conditionRow}>
            <SelectField
              label={`${b.conditionField} ${i + 1}`}
              hideLabel
              options={earlier.map((f) => ({ value: f.key!, label: f.label || f.key }))}
              value={condition.field}
              onChange={(event) => set({ field: event.target.value, operator: "filled" })}
            />
            <SelectField
              label={`${b.conditionOperator} ${i + 1}`}
              hideLabel
              value={condition.operator}
              onChange={(event) => {
                const operator = event.target.value as Operator;
                const value = startValue(operator, target);
                set(value === undefined ? { field: condition.field, operator } : { ...condition, operator, value });
              }}
              options={operators.map((operator) => ({ value: operator, label: operatorLabel(operator, b) }))}
            />
            {condition.operator === "filled" || condition.operator === "empty" ? (
              <span />
            ) : (
              <ConditionValue
                key={`${condition.field}:${condition.operator}`}
                condition={condition}
                target={target}
                n={i + 1}
                onChange={(value) => set({ ...condition, value })}
              />
            )}
            <Button size="small" variant="ghost" onClick={() => update(conditions.filter((_, j) => j !== i))}>
              {b.conditionRemove}
            </Button>
          </div>
        );
      })}
      {earlier.length > 0 ? (
        <div>
          <Button
            size="small"
            onClick={() => update([...conditions, blank()])}
            aria-describedby={problem ? `${id}-problem` : undefined}
          >
            {b.conditionAdd}
          </Button>
        </div>
      ) : null}
      {problem ? (
        <span id={`${id}-problem`} className="cs-field-error">
          {conditions.some((c) => c.operator === "in" && Array.isArray(c.value) && c.value.length === 0)
            ? b.conditionPickOne
            : problem}
        </span>
      ) : null}
    </fieldset>
  );
}

/** What a condition's value editor gets: the condition, the field it names, its position. */
interface ValueProps {
  condition: FieldCondition;
  target: FormField | undefined;
  n: number;
  onChange(value: FieldCondition["value"]): void;
}

function ConditionValue({ condition, target, n, onChange }: ValueProps) {
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
