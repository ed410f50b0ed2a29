"use client";

import { type FieldCondition, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Button, SelectField } from "@clinsign/ui";
import { useId } from "react";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { conditionTargets, operatorsFor, optionsOf, type FieldType, type When } from "./builder-model";
import styles from "./builder.module.css";
import { ConditionValue } from "./ConditionValue";

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
      {conditions.map((condition, i) => (
        <ConditionRow
          key={i}
          condition={condition}
          n={i + 1}
          schema={schema}
          earlier={earlier}
          onChange={(next) => update(conditions.map((c, j) => (j === i ? next : c)))}
          onRemove={() => update(conditions.filter((_, j) => j !== i))}
        />
      ))}
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

/** One condition: the earlier field it names, an operator that fits that field, its value, Remove. */
function ConditionRow({
  condition,
  n,
  schema,
  earlier,
  onChange,
  onRemove,
}: {
  condition: FieldCondition;
  /** The condition's position, from 1: its controls are named with it. */
  n: number;
  schema: TemplateSchema;
  /** The fields the condition may name. */
  earlier: FormField[];
  onChange(condition: FieldCondition): void;
  onRemove(): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const target = schema.fields.find((f) => f.key === condition.field);
  const operators = operatorsFor(target?.type as FieldType | undefined);
  // A stored operator this builder no longer offers for the field (from an import) still shows.
  if (!operators.includes(condition.operator)) operators.push(condition.operator);
  return (
    <div className={styles.conditionRow}>
      <SelectField
        label={`${b.conditionField} ${n}`}
        hideLabel
        options={earlier.map((f) => ({ value: f.key!, label: f.label || f.key }))}
        value={condition.field}
        onChange={(event) => onChange({ field: event.target.value, operator: "filled" })}
      />
      <SelectField
        label={`${b.conditionOperator} ${n}`}
        hideLabel
        value={condition.operator}
        onChange={(event) => {
          const operator = event.target.value as Operator;
          const value = startValue(operator, target);
          onChange(value === undefined ? { field: condition.field, operator } : { ...condition, operator, value });
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
          n={n}
          onChange={(value) => onChange({ ...condition, value })}
        />
      )}
      <Button size="small" variant="ghost" onClick={onRemove}>
        {b.conditionRemove}
      </Button>
    </div>
  );
}
