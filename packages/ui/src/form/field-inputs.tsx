"use client";

import { useState } from "react";
import { Field, type FieldControlAttributes } from "../Field";
import { cx } from "../cx";
import { optionLabel, optionValue, textOf, type ControlBase, type FieldKindProps } from "./field-frame";
import styles from "./FormRenderer.module.css";

/** "12,5" and "12.5" are numbers; anything else stays text, so the validator can name it. */
function parseNumber(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const normalised = trimmed.replace(",", ".");
  return /^-?\d+(\.\d+)?$/.test(normalised) ? Number(normalised) : trimmed;
}

/** A text, e-mail or phone field: one line, with the keyboard and autofill of its kind. */
export function TextInput({ field, frame, control, value, onChange }: FieldKindProps<"text" | "email" | "phone">) {
  return (
    <Field {...frame}>
      {(attributes) => (
        <input
          {...attributes}
          {...control}
          className="cs-input"
          type={field.type === "phone" ? "tel" : field.type}
          inputMode={field.type === "phone" ? "tel" : field.type === "email" ? "email" : undefined}
          autoComplete={field.type === "phone" ? "tel" : field.type === "email" ? "email" : undefined}
          placeholder={field.placeholder}
          maxLength={field.maxLength}
          value={textOf(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** A text area, with a character count under it when the field has a length limit. */
export function TextAreaInput({ field, frame, control, value, labels, onChange }: FieldKindProps<"textarea">) {
  return (
    <Field {...frame}>
      {(attributes) => (
        <>
          <textarea
            {...attributes}
            {...control}
            className={cx("cs-input", styles.textarea)}
            rows={4}
            placeholder={field.placeholder}
            value={textOf(value)}
            onChange={(event) => onChange(event.target.value)}
          />
          {field.maxLength ? (
            <p className={cx("cs-hint", styles.counter)} aria-live="off">
              {labels.characterCount
                .replace("{count}", String(typeof value === "string" ? value.length : 0))
                .replace("{max}", String(field.maxLength))}
            </p>
          ) : null}
        </>
      )}
    </Field>
  );
}

/** A number field: typed as text (a decimal comma works), answered as a number. */
export function NumberField({ field, frame, control, value, onChange }: FieldKindProps<"number">) {
  return (
    <Field {...frame}>
      {(attributes) => (
        <NumberInput
          common={{ ...attributes, ...control }}
          placeholder={field.placeholder}
          value={value}
          onChange={onChange}
        />
      )}
    </Field>
  );
}

/** Keeps what the patient typed ("12," on the way to "12,5") while the value is a number. */
function NumberInput({
  common,
  placeholder,
  value,
  onChange,
}: {
  common: FieldControlAttributes & ControlBase;
  placeholder: string | undefined;
  value: unknown;
  onChange(value: unknown): void;
}) {
  const external = typeof value === "number" ? String(value) : typeof value === "string" ? value : "";
  const [text, setText] = useState(external);
  const shownText = parseNumber(text) === (typeof value === "number" ? value : (value ?? null)) ? text : external;
  return (
    <input
      {...common}
      className={cx("cs-input", styles.number)}
      type="text"
      inputMode="decimal"
      autoComplete="off"
      placeholder={placeholder}
      value={shownText}
      onChange={(event) => {
        setText(event.target.value);
        onChange(parseNumber(event.target.value));
      }}
    />
  );
}

/** A date field: the browser's own date picker, within the field's bounds. */
export function DateInput({ field, frame, control, value, onChange }: FieldKindProps<"date">) {
  return (
    <Field {...frame}>
      {(attributes) => (
        <input
          {...attributes}
          {...control}
          className={cx("cs-input", styles.date)}
          type="date"
          min={field.min}
          max={field.max}
          value={textOf(value)}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** A select: the placeholder first (no answer), then the field's options. */
export function SelectInput({ field, frame, control, value, labels, onChange }: FieldKindProps<"select">) {
  return (
    <Field {...frame}>
      {(attributes) => (
        <select
          {...attributes}
          {...control}
          className="cs-input"
          value={textOf(value)}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">{field.placeholder ?? labels.selectPlaceholder}</option>
          {field.options.map((option) => (
            <option key={optionValue(option)} value={optionValue(option)}>
              {optionLabel(option)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A single checkbox, wrapped in its label. */
export function CheckboxInput({ frame, control, value, onChange }: FieldKindProps<"checkbox">) {
  return (
    <Field {...frame} layout="inline" labelClassName={cx(styles.choice, styles.single)}>
      {(attributes) => (
        <input
          {...attributes}
          {...control}
          type="checkbox"
          checked={value === true}
          onChange={(event) => onChange(event.target.checked)}
        />
      )}
    </Field>
  );
}
