"use client";

import { type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Field, TextField } from "@clinsign/ui";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import {
  fileTypeChoices,
  isDisplayType,
  keyFromLabel,
  optionalNumber,
  readAccept,
  uniqueKey,
  writeAccept,
  type FieldType,
  type FileTypeChoice,
} from "./builder-model";
import styles from "./builder.module.css";
import { ChoiceOptions } from "./ChoiceOptions";
import { ConditionEditor } from "./ConditionEditor";
import { FlagRuleSetting } from "./FlagRuleSetting";
import { ScoreEditor } from "./ScoreEditor";

type Attrs = Record<string, unknown>;

/** `undefined` for an empty input, so optional attributes disappear instead of being "". */
const optionalText = (value: string) => (value === "" ? undefined : value);

function withAttr(field: FormField, name: string, value: unknown): FormField {
  const next = { ...field } as Attrs;
  if (value === undefined) delete next[name];
  else next[name] = value;
  return next as FormField;
}

/** Attributes behind "More options": technical or rarely needed; a problem in one opens them. */
const ADVANCED_ATTRIBUTES = [
  "key",
  "placeholder",
  "min",
  "max",
  "minLength",
  "maxLength",
  "pattern",
  "accept",
  "maxSizeMb",
];

/** The id of a field's label input: the builder focuses it when the field is added. */
export const labelInputId = (fieldId: string) => `label-${fieldId}`;

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
}: {
  field: FormField;
  index: number;
  schema: TemplateSchema;
  problems: Record<string, string>;
  keyFollowsLabel: boolean;
  onChange(field: FormField): void;
  /** For what reaches beyond this field: its answer list. */
  onSchemaChange(schema: TemplateSchema): void;
  onKeyEdited(): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const type = field.type as FieldType;
  const attrs = field as Attrs;
  const text = (name: string) => (typeof attrs[name] === "string" ? (attrs[name] as string) : "");
  const number = (name: string) => (typeof attrs[name] === "number" ? String(attrs[name]) : "");
  const set = (name: string, value: unknown) => onChange(withAttr(field, name, value));

  const advancedProblem = ADVANCED_ATTRIBUTES.some((name) => problems[name]);
  const [advancedOpen, setAdvancedOpen] = useState(advancedProblem);

  function setLabel(label: string) {
    let next = withAttr(field, "label", label);
    if (keyFollowsLabel && !isDisplayType(type))
      next = withAttr(next, "key", uniqueKey(keyFromLabel(label), schema.fields, field.id));
    onChange(next);
  }

  return (
    <div className={styles.editor}>
      {type === "paragraph" ? (
        <div className="cs-field">
          <label className="cs-label" htmlFor={labelInputId(field.id)}>
            {b.text}
          </label>
          <textarea
            id={labelInputId(field.id)}
            className="cs-input"
            rows={3}
            value={field.label}
            onChange={(event) => setLabel(event.target.value)}
            aria-invalid={problems.label ? true : undefined}
          />
          {problems.label ? <span className="cs-field-error">{problems.label}</span> : null}
        </div>
      ) : (
        <TextField
          id={labelInputId(field.id)}
          label={b.label}
          value={field.label}
          onChange={(event) => setLabel(event.target.value)}
          error={problems.label}
        />
      )}
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
            value={text("helpText")}
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
      {type === "file" ? <FileTypes accept={text("accept")} onChange={(accept) => set("accept", accept)} /> : null}
      {field.type === "score" ? (
        <ScoreEditor field={field} index={index} schema={schema} problems={problems} onChange={onChange} />
      ) : null}
      <ConditionEditor
        field={field}
        index={index}
        schema={schema}
        problem={problems.visibleWhen}
        onChange={(when) => set("visibleWhen", when)}
      />
      {isDisplayType(type) ? null : (
        <details
          className={styles.advanced}
          open={advancedOpen || advancedProblem}
          onToggle={(event) => setAdvancedOpen(event.currentTarget.open)}
        >
          <summary>
            {b.advanced} <span className="cs-hint">({b.advancedHint})</span>
          </summary>
          <div className={styles.advancedBody}>
            <TextField
              label={b.key}
              hint={b.keyHint}
              mono
              value={field.key ?? ""}
              onChange={(event) => {
                onKeyEdited();
                set("key", event.target.value);
              }}
              error={problems.key}
            />
            {["text", "textarea", "email", "phone", "number", "select"].includes(type) ? (
              <TextField
                label={b.placeholder}
                value={text("placeholder")}
                onChange={(event) => set("placeholder", optionalText(event.target.value))}
                error={problems.placeholder}
              />
            ) : null}
            {type === "number" ? (
              <div className={styles.pair}>
                <TextField
                  label={b.min}
                  inputMode="decimal"
                  value={number("min")}
                  onChange={(event) => set("min", optionalNumber(event.target.value))}
                  error={problems.min}
                />
                <TextField
                  label={b.max}
                  inputMode="decimal"
                  value={number("max")}
                  onChange={(event) => set("max", optionalNumber(event.target.value))}
                  error={problems.max}
                />
              </div>
            ) : null}
            {type === "date" ? (
              <div className={styles.pair}>
                <TextField
                  label={b.min}
                  type="date"
                  value={text("min")}
                  onChange={(event) => set("min", optionalText(event.target.value))}
                  error={problems.min}
                />
                <TextField
                  label={b.max}
                  type="date"
                  value={text("max")}
                  onChange={(event) => set("max", optionalText(event.target.value))}
                  error={problems.max}
                />
              </div>
            ) : null}
            {["text", "textarea", "email", "phone"].includes(type) ? (
              <>
                <div className={styles.pair}>
                  <TextField
                    label={b.minLength}
                    inputMode="numeric"
                    value={number("minLength")}
                    onChange={(event) => set("minLength", optionalNumber(event.target.value))}
                    error={problems.minLength}
                  />
                  <TextField
                    label={b.maxLength}
                    inputMode="numeric"
                    value={number("maxLength")}
                    onChange={(event) => set("maxLength", optionalNumber(event.target.value))}
                    error={problems.maxLength}
                  />
                </div>
                <PatternEditor
                  value={text("pattern")}
                  problem={problems.pattern}
                  onChange={(pattern) => set("pattern", optionalText(pattern))}
                />
              </>
            ) : null}
            {type === "file" ? (
              <div className={styles.pair}>
                <TextField
                  label={b.acceptOther}
                  hint={b.acceptHint}
                  value={readAccept(text("accept")).other}
                  onChange={(event) =>
                    set("accept", writeAccept(readAccept(text("accept")).choices, event.target.value))
                  }
                  error={problems.accept}
                />
                <TextField
                  label={b.maxSizeMb}
                  inputMode="decimal"
                  value={number("maxSizeMb")}
                  onChange={(event) => set("maxSizeMb", optionalNumber(event.target.value))}
                  error={problems.maxSizeMb}
                />
              </div>
            ) : null}
          </div>
        </details>
      )}
    </div>
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

function PatternEditor({
  value,
  problem,
  onChange,
}: {
  value: string;
  problem?: string;
  onChange(pattern: string): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const [sample, setSample] = useState("");
  let verdict: string | null = null;
  if (value && sample && !problem) {
    try {
      verdict = new RegExp(`^(?:${value})$`, "u").test(sample) ? b.patternMatches : b.patternNoMatch;
    } catch {
      verdict = null;
    }
  }
  return (
    <div className={styles.pair}>
      <TextField
        label={b.pattern}
        hint={b.patternHint}
        mono
        value={value}
        onChange={(event) => onChange(event.target.value)}
        error={problem}
      />
      <div className="cs-field">
        <TextField
          label={b.patternTest}
          value={sample}
          onChange={(event) => setSample(event.target.value)}
          disabled={!value}
        />
        <span className="cs-hint" role="status">
          {verdict}
        </span>
      </div>
    </div>
  );
}
