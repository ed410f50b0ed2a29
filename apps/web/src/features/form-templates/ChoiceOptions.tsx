"use client";

import { type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Button, SelectField } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { addOptionSet, linkOptionSet, optionSetUsers, replaceField, updateOptionSet } from "./builder-model";
import { OptionRows } from "./OptionRows";

type ChoiceField = Extract<FormField, { options: unknown }>;

/**
 * A choice field's answers: its own options, or an answer list shared with other questions
 * (edited here or under "Answer lists"; a change applies to every question using it).
 */
export function ChoiceOptions({
  field,
  index,
  schema,
  problem,
  onSchemaChange,
}: {
  field: ChoiceField;
  index: number;
  schema: TemplateSchema;
  problem?: string;
  onSchemaChange(schema: TemplateSchema): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const sets = schema.optionSets ?? [];
  const linked = field.optionSet !== undefined ? sets.find((set) => set.id === field.optionSet) : undefined;
  return (
    <div className="cs-stack">
      {sets.length > 0 ? (
        <SelectField
          label={b.answerSource}
          value={linked?.id ?? ""}
          options={[
            { value: "", label: b.ownOptions },
            ...sets.map((set) => ({ value: set.id, label: format(b.answerListNamed, { name: set.label }) })),
          ]}
          onChange={(event) => onSchemaChange(linkOptionSet(schema, index, event.target.value || undefined))}
        />
      ) : null}
      {linked ? (
        <>
          <OptionRows
            key={`set-${linked.id}`}
            options={linked.options}
            problem={problem}
            onChange={(options) => onSchemaChange(updateOptionSet(schema, linked.id, { options }))}
          />
          <span className="cs-hint">
            {format(b.answerListShared, { count: optionSetUsers(schema, linked.id).length })}
          </span>
        </>
      ) : (
        <>
          <OptionRows
            key={`own-${field.id}`}
            options={field.options}
            problem={problem}
            onChange={(options) => onSchemaChange(replaceField(schema, index, { ...field, options }))}
          />
          <div>
            <Button
              size="small"
              onClick={() =>
                onSchemaChange(
                  addOptionSet(schema, field.label || b.answerListDefaultName, field.options, index).schema,
                )
              }
            >
              {b.saveAsAnswerList}
            </Button>
          </div>
        </>
      )}
    </div>
  );
}
