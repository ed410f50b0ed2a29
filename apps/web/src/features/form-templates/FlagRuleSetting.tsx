"use client";

import type { FormField, TemplateSchema } from "@clinsign/contracts";
import { flagRuleOf, isChoiceField, optionWeightOf, setFlagRule } from "@clinsign/contracts/form-flags";
import { Switch, TextField } from "@clinsign/ui";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { parseWeight } from "./builder-model";

/**
 * A choice field's "Needs attention" rule (`schema.flagged`, form-flags.ts): on, a submission
 * whose answer to this field weighs at least "From weight" is marked in the submissions list.
 * Offered for fields whose options carry weights (and for one that has a rule, so it can be
 * turned off). Switching it on starts at the lowest weight above the smallest (PHQ-9: 1).
 */
export function FlagRuleSetting({
  field,
  schema,
  onSchemaChange,
}: {
  field: FormField;
  schema: TemplateSchema;
  onSchemaChange(schema: TemplateSchema): void;
}) {
  const { t } = useI18n();
  const s = t.formTemplates.flagRule;
  const rule = flagRuleOf(schema, field.key);
  const [text, setText] = useState(rule ? String(rule.minWeight) : "");
  const [seen, setSeen] = useState(rule?.minWeight);
  if (rule?.minWeight !== seen) {
    setSeen(rule?.minWeight);
    if (rule && parseWeight(text) !== rule.minWeight) setText(String(rule.minWeight));
  }
  if (!isChoiceField(field) || field.key === undefined) return null;
  const key = field.key;
  const weights = [...new Set(field.options.map(optionWeightOf).filter((w): w is number => w !== undefined))].sort(
    (a, b) => a - b,
  );
  if (weights.length === 0 && !rule) return null;
  const idBase = `flag-${field.id}`;
  const invalid = rule !== undefined && parseWeight(text) === undefined;
  return (
    <div className="cs-stack cs-stack--sm">
      <Switch
        id={`${idBase}-on`}
        label={s.label}
        description={weights.length === 0 ? s.noWeights : s.hint}
        checked={rule !== undefined}
        onChange={(on) => {
          const start = weights.find((w) => w > weights[0]!) ?? weights[0] ?? 1;
          setText(String(start));
          onSchemaChange(setFlagRule(schema, key, on ? start : null));
        }}
      />
      {rule ? (
        <TextField
          id={`${idBase}-min`}
          label={s.minWeight}
          inputMode="decimal"
          value={text}
          error={invalid ? s.invalid : null}
          onChange={(event) => {
            setText(event.target.value);
            const weight = parseWeight(event.target.value);
            if (weight !== undefined) onSchemaChange(setFlagRule(schema, key, weight));
          }}
        />
      ) : null}
    </div>
  );
}
