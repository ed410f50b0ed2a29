"use client";

import { isCodable, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Field, TextField } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import { AdvancedAttributes } from "./AdvancedAttributes";
import {
  fileTypeChoices,
  isDisplayType,
  keyFromLabel,
  readAccept,
  uniqueKey,
  writeAccept,
  type FieldType,
  type FileTypeChoice,
} from "./builder-model";
import styles from "./builder.module.css";
import { ChoiceOptions } from "./ChoiceOptions";
import { ConditionEditor } from "./ConditionEditor";
import { attrText, optionalText, withAttr } from "./field-attributes";
import { FlagRuleSetting } from "./FlagRuleSetting";
import { FieldCodeEditor } from "./FieldCodeEditor";
import { ScoreEditor } from "./ScoreEditor";

/** The id of a field's label input: the builder focuses it when the field is added. */
export const labelInputId = (fieldId: string) => `label-${fieldId}`;

interface FieldEditorProps {
  field: FormField;
  index: number;
  schema: TemplateSchema;
  problems: Record<string, string>;
  keyFollowsLabel: boolean;
  onChange(field: FormField): void;
  /** For what reaches beyond this field: its answer list. */
  onSchemaChange(schema: TemplateSchema): void;
  onKeyEdited(): void;
}

/**
 * The attributes of one field, each validated as it is typed (the template schema's own
 * messages, by path), and its condition. `problems` maps attribute names to messages. What most
 * fields need (label, required, help text, options, file types, condition) is always shown; the
 * rest waits behind "More options".
 */
export function FieldEditor({
  field,
  index,
  schema,
  problems,
  keyFollowsLabel,
  onChange,
  onSchemaChange,
  onKeyEdited,
}: FieldEditorProps) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const type = field.type as FieldType;
  const set = (name: string, value: unknown) => onChange(withAttr(field, name, value));

  function setLabel(label: string) {
    let next = withAttr(field, "label", label);
    if (keyFollowsLabel && !isDisplayType(type))
      next = withAttr(next, "key", uniqueKey(keyFromLabel(label), schema.fields, field.id));
    onChange(next);
  }

  return (
    <div className={styles.editor}>
      <LabelInput field={field} problem={problems.label} onChange={setLabel} />
      {isDisplayType(type) ? null : (
        <>
          {type === "score" ? null : (
            <label className={styles.check}>
              <input
                type="checkbox"
                checked={field.required === true}
                onChange={(event) => set("required", event.target.checked || undefined)}
              />
              <span>{b.required}</span>
            </label>
          )}
          <TextField
            label={b.helpText}
            value={attrText(field, "helpText")}
            onChange={(event) => set("helpText", optionalText(event.target.value))}
            error={problems.helpText}
          />
        </>
      )}
      {"options" in field ? (
        <ChoiceOptions
          field={field}
          index={index}
          schema={schema}
          problem={problems.options ?? problems.optionSet}
          onSchemaChange={onSchemaChange}
        />
      ) : null}
      {"options" in field ? <FlagRuleSetting field={field} schema={schema} onSchemaChange={onSchemaChange} /> : null}
      {type === "file" ? (
        <FileTypes accept={attrText(field, "accept")} onChange={(accept) => set("accept", accept)} />
      ) : null}
      {field.type === "score" ? (
        <ScoreEditor field={field} index={index} schema={schema} problems={problems} onChange={onChange} />
      ) : isCodable(field) ? (
        <FieldCodeEditor field={field} error={problems.code} onChange={onChange} />
      ) : null}
      <ConditionEditor
        field={field}
        index={index}
        schema={schema}
        problem={problems.visibleWhen}
        onChange={(when) => set("visibleWhen", when)}
      />
      {isDisplayType(type) ? null : (
        <AdvancedAttributes field={field} problems={problems} onChange={onChange} onKeyEdited={onKeyEdited} />
      )}
    </div>
  );
}

/** A field's label, or a paragraph's text (several lines); the builder focuses it when the field is added. */
function LabelInput({
  field,
  problem,
  onChange,
}: {
  field: FormField;
  problem?: string;
  onChange(label: string): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  if (field.type === "paragraph")
    return (
      <div className="cs-field">
        <label className="cs-label" htmlFor={labelInputId(field.id)}>
          {b.text}
        </label>
        <textarea
          id={labelInputId(field.id)}
          className="cs-input"
          rows={3}
          value={field.label}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={problem ? true : undefined}
        />
        {problem ? <span className="cs-field-error">{problem}</span> : null}
      </div>
    );
  return (
    <TextField
      id={labelInputId(field.id)}
      label={b.label}
      value={field.label}
      onChange={(event) => onChange(event.target.value)}
      error={problem}
    />
  );
}

/** Accepted file types as checkboxes (PDF, images, Word …) instead of typed MIME patterns. */
function FileTypes({ accept, onChange }: { accept: string; onChange(accept: string | undefined): void }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const { choices, other } = readAccept(accept);
  const labels: Record<FileTypeChoice, string> = {
    pdf: b.fileTypePdf,
    images: b.fileTypeImages,
    word: b.fileTypeWord,
    excel: b.fileTypeExcel,
    text: b.fileTypeText,
  };
  return (
    <Field layout="group" className={styles.fileTypes} label={b.fileTypes} hint={b.fileTypesHint}>
      {() => (
        <>
          <div className={styles.fileTypeList}>
            {(Object.keys(fileTypeChoices) as FileTypeChoice[]).map((choice) => (
              <label key={choice} className={styles.check}>
                <input
                  type="checkbox"
                  checked={choices.has(choice)}
                  onChange={(event) => {
                    const next = new Set(choices);
                    if (event.target.checked) next.add(choice);
                    else next.delete(choice);
                    onChange(writeAccept(next, other));
                  }}
                />
                <span>{labels[choice]}</span>
              </label>
            ))}
          </div>
        </>
      )}
    </Field>
  );
}
