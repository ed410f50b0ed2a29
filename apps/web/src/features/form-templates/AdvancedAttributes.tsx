"use client";

import type { FormField } from "@clinsign/contracts";
import { TextField } from "@clinsign/ui";
import { useState } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { optionalNumber, readAccept, writeAccept, type FieldType } from "./builder-model";
import styles from "./builder.module.css";
import { ADVANCED_ATTRIBUTES, attrNumber, attrText, optionalText, withAttr } from "./field-attributes";

interface AttributesProps {
  field: FormField;
  /** Problems by attribute name. */
  problems: Record<string, string>;
  onChange(field: FormField): void;
}

/**
 * "More options" of a field: its key, placeholder and the limits its type takes (numbers, dates,
 * lengths and a pattern, file size). Closed at first unless one of them has a problem.
 */
export function AdvancedAttributes({
  field,
  problems,
  onChange,
  onKeyEdited,
}: AttributesProps & { onKeyEdited(): void }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const type = field.type as FieldType;
  const set = (name: string, value: unknown) => onChange(withAttr(field, name, value));
  const advancedProblem = ADVANCED_ATTRIBUTES.some((name) => problems[name]);
  const [advancedOpen, setAdvancedOpen] = useState(advancedProblem);
  return (
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
            value={attrText(field, "placeholder")}
            onChange={(event) => set("placeholder", optionalText(event.target.value))}
            error={problems.placeholder}
          />
        ) : null}
        <TypeLimits field={field} problems={problems} onChange={onChange} />
      </div>
    </details>
  );
}

/** The limits a field's type takes: a number's or a date's range, a text's lengths and pattern, a file's size. */
function TypeLimits({ field, problems, onChange }: AttributesProps) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const type = field.type as FieldType;
  const set = (name: string, value: unknown) => onChange(withAttr(field, name, value));
  const numberInput = (name: string, label: string, inputMode: "decimal" | "numeric") => (
    <TextField
      label={label}
      inputMode={inputMode}
      value={attrNumber(field, name)}
      onChange={(event) => set(name, optionalNumber(event.target.value))}
      error={problems[name]}
    />
  );
  const dateInput = (name: string, label: string) => (
    <TextField
      label={label}
      type="date"
      value={attrText(field, name)}
      onChange={(event) => set(name, optionalText(event.target.value))}
      error={problems[name]}
    />
  );
  if (type === "number")
    return (
      <div className={styles.pair}>
        {numberInput("min", b.min, "decimal")}
        {numberInput("max", b.max, "decimal")}
      </div>
    );
  if (type === "date")
    return (
      <div className={styles.pair}>
        {dateInput("min", b.min)}
        {dateInput("max", b.max)}
      </div>
    );
  if (["text", "textarea", "email", "phone"].includes(type))
    return (
      <>
        <div className={styles.pair}>
          {numberInput("minLength", b.minLength, "numeric")}
          {numberInput("maxLength", b.maxLength, "numeric")}
        </div>
        <PatternEditor
          value={attrText(field, "pattern")}
          problem={problems.pattern}
          onChange={(pattern) => set("pattern", optionalText(pattern))}
        />
      </>
    );
  if (type !== "file") return null;
  const accept = readAccept(attrText(field, "accept"));
  return (
    <div className={styles.pair}>
      <TextField
        label={b.acceptOther}
        hint={b.acceptHint}
        value={accept.other}
        onChange={(event) => set("accept", writeAccept(accept.choices, event.target.value))}
        error={problems.accept}
      />
      {numberInput("maxSizeMb", b.maxSizeMb, "decimal")}
    </div>
  );
}

/** A validation pattern, with a sample to try it on: whether the sample matches shows as it is typed. */
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
