"use client";

import { conditionOperators, type FieldCondition, type FormField, type TemplateSchema } from "@clinsign/contracts";
import { Button, SelectField, TextField } from "@clinsign/ui";
import { useId, useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import {
  fileTypeChoices,
  hasOptions,
  nextBand,
  scoreSourceCandidates,
  type Band,
  isDisplayType,
  keyFromLabel,
  optionsToText,
  readAccept,
  textToOptions,
  uniqueKey,
  writeAccept,
  type FieldType,
  type FileTypeChoice,
} from "./builder-model";
import styles from "./builder.module.css";

type Attrs = Record<string, unknown>;

/** `undefined` for an empty input, so optional attributes disappear instead of being "". */
const optionalText = (value: string) => (value === "" ? undefined : value);
const optionalNumber = (value: string) =>
  value.trim() === "" || !Number.isFinite(Number(value)) ? undefined : Number(value);

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
  onKeyEdited,
}: {
  field: FormField;
  index: number;
  schema: TemplateSchema;
  problems: Record<string, string>;
  keyFollowsLabel: boolean;
  onChange(field: FormField): void;
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
      {hasOptions(type) ? (
        <OptionsEditor field={field} problem={problems.options} onChange={(options) => set("options", options)} />
      ) : null}
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

/**
 * A score field: which earlier choice fields it sums (their options' weights are edited with
 * the options, "value | label | weight") and the bands that name its ranges.
 */
function ScoreEditor({
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
  const id = useId();
  const candidates = scoreSourceCandidates(schema.fields, index);
  const bands = field.bands ?? [];
  const setBands = (next: Band[]) => onChange(withAttr(field, "bands", next.length > 0 ? next : undefined));
  const setBand = (i: number, patch: Partial<Band>) =>
    setBands(bands.map((band, j) => (j === i ? { ...band, ...patch } : band)));
  const toggle = (key: string, on: boolean) => {
    // Sources keep the order of the form.
    const chosen = new Set(field.sources);
    if (on) chosen.add(key);
    else chosen.delete(key);
    onChange({ ...field, sources: candidates.map((f) => f.key!).filter((k) => chosen.has(k)) });
  };
  return (
    <>
      <fieldset className={styles.fileTypes} aria-describedby={`${id}-sources-hint`}>
        <legend className="cs-label">{b.scoreSources}</legend>
        <span id={`${id}-sources-hint`} className="cs-hint">
          {candidates.length > 0 ? b.scoreSourcesHint : b.scoreNoSources}
        </span>
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
        {problems.sources ? <span className="cs-field-error">{problems.sources}</span> : null}
      </fieldset>
      <fieldset className={styles.condition} aria-describedby={`${id}-bands-hint`}>
        <legend className="cs-label">{b.scoreBands}</legend>
        <span id={`${id}-bands-hint`} className="cs-hint">
          {b.scoreBandsHint}
        </span>
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
        {problems.bands ? <span className="cs-field-error">{problems.bands}</span> : null}
      </fieldset>
    </>
  );
}

/** Accepted file types as checkboxes (PDF, images, Word …) instead of typed MIME patterns. */
function FileTypes({ accept, onChange }: { accept: string; onChange(accept: string | undefined): void }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const id = useId();
  const { choices, other } = readAccept(accept);
  const labels: Record<FileTypeChoice, string> = {
    pdf: b.fileTypePdf,
    images: b.fileTypeImages,
    word: b.fileTypeWord,
    excel: b.fileTypeExcel,
    text: b.fileTypeText,
  };
  return (
    <fieldset className={styles.fileTypes} aria-describedby={`${id}-hint`}>
      <legend className="cs-label">{b.fileTypes}</legend>
      <span id={`${id}-hint`} className="cs-hint">
        {b.fileTypesHint}
      </span>
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
    </fieldset>
  );
}

function OptionsEditor({
  field,
  problem,
  onChange,
}: {
  field: FormField;
  problem?: string;
  onChange(options: ReturnType<typeof textToOptions>): void;
}) {
  const { t } = useI18n();
  const id = useId();
  const options = "options" in field ? field.options : [];
  // The text as typed (blank lines included); the options follow it.
  const [text, setText] = useState(() => optionsToText(options));
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor={id}>
        {t.formTemplates.builder.options}
      </label>
      <span className="cs-hint" id={`${id}-hint`}>
        {t.formTemplates.builder.optionsHint}
      </span>
      <textarea
        id={id}
        className="cs-input"
        rows={Math.min(10, Math.max(3, options.length + 1))}
        value={text}
        aria-describedby={`${id}-hint`}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => {
          setText(event.target.value);
          onChange(textToOptions(event.target.value));
        }}
      />
      {problem ? <span className="cs-field-error">{problem}</span> : null}
    </div>
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

type When = NonNullable<FormField["visibleWhen"]>;

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

const operatorLabel = (operator: FieldCondition["operator"], b: Dictionary["formTemplates"]["builder"]) =>
  ({
    equals: b.operatorEquals,
    notEquals: b.operatorNotEquals,
    in: b.operatorIn,
    filled: b.operatorFilled,
    empty: b.operatorEmpty,
  })[operator];

/** A condition in words, for the field list ("smoker is yes"). */
export function describeCondition(
  when: When,
  schema: TemplateSchema,
  b: Dictionary["formTemplates"]["builder"],
): string {
  const { mode, conditions } = conditionList(when);
  const label = (key: string) => schema.fields.find((f) => f.key === key)?.label || key;
  const one = (c: FieldCondition) =>
    [
      label(c.field),
      operatorLabel(c.operator, b),
      c.value === undefined ? "" : Array.isArray(c.value) ? c.value.join(", ") : String(c.value),
    ]
      .filter(Boolean)
      .join(" ");
  return conditions.map(one).join(mode === "all" ? " · " : " | ");
}

/** "Show this field only when…": pick an earlier field, an operator and a value. */
function ConditionEditor({
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
  // A score is computed, not answered: conditions cannot name it.
  const earlier = schema.fields
    .slice(0, index)
    .filter((f) => f.key && !isDisplayType(f.type as FieldType) && f.type !== "score");
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
        const change = (patch: Partial<FieldCondition>) => {
          const next = { ...condition, ...patch } as FieldCondition;
          if (next.operator === "filled" || next.operator === "empty") delete next.value;
          update(conditions.map((c, j) => (j === i ? next : c)));
        };
        return (
          <div key={i} className={styles.conditionRow}>
            <SelectField
              label={`${b.conditionField} ${i + 1}`}
              hideLabel
              options={earlier.map((f) => ({ value: f.key!, label: f.label || f.key }))}
              value={condition.field}
              onChange={(event) => change({ field: event.target.value, value: undefined, operator: "filled" })}
            />
            <SelectField
              label={`${b.conditionOperator} ${i + 1}`}
              hideLabel
              value={condition.operator}
              onChange={(event) => {
                const operator = event.target.value as FieldCondition["operator"];
                change({
                  operator,
                  value:
                    operator === "in"
                      ? []
                      : operator === "equals" || operator === "notEquals"
                        ? defaultValue(target)
                        : undefined,
                });
              }}
              options={conditionOperators
                .filter((operator) => !(target?.type === "checkbox" && operator === "in"))
                .filter(
                  (operator) =>
                    !(
                      (target?.type === "file" || target?.type === "signature") &&
                      operator !== "filled" &&
                      operator !== "empty"
                    ),
                )
                .map((operator) => ({ value: operator, label: operatorLabel(operator, b) }))}
            />
            {condition.operator === "filled" || condition.operator === "empty" ? (
              <span />
            ) : (
              <ConditionValue
                key={`${condition.field}:${condition.operator}`}
                condition={condition}
                target={target}
                label={`${b.conditionValue} ${i + 1}`}
                onChange={(value) => change({ value })}
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
          {problem}
        </span>
      ) : null}
    </fieldset>
  );
}

function defaultValue(target: FormField | undefined): FieldCondition["value"] {
  if (!target) return "";
  if (target.type === "checkbox") return true;
  if (target.type === "number") return 0;
  if ("options" in target) {
    const first = target.options[0];
    return typeof first === "string" ? first : (first?.value ?? "");
  }
  return "";
}

function ConditionValue({
  condition,
  target,
  label,
  onChange,
}: {
  condition: FieldCondition;
  target: FormField | undefined;
  label: string;
  onChange(value: FieldCondition["value"]): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
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
  if (target && "options" in target && condition.operator !== "in") {
    return (
      <SelectField
        label={label}
        hideLabel
        options={target.options.map((option) =>
          typeof option === "string" ? { value: option } : { value: option.value, label: option.label || option.value },
        )}
        value={String(condition.value ?? "")}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  const asNumber = target?.type === "number";
  return (
    <FreeConditionValue
      condition={condition}
      asNumber={asNumber}
      label={label}
      hint={b.conditionValuesHint}
      onChange={onChange}
    />
  );
}

/** Typed values ("a, b" for "is one of"): the text as typed stays, the value follows it. */
function FreeConditionValue({
  condition,
  asNumber,
  label,
  hint,
  onChange,
}: {
  condition: FieldCondition;
  asNumber: boolean;
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
      inputMode={asNumber ? "decimal" : undefined}
      value={text}
      onChange={(event) => {
        const raw = event.target.value;
        setText(raw);
        const parse = (part: string) =>
          asNumber && part.trim() !== "" && Number.isFinite(Number(part)) ? Number(part) : part.trim();
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
