"use client";

import type { FieldProblem, FormField } from "@clinsign/contracts";
import type { ScoreState } from "@clinsign/contracts/form-scores";
import { useState, type ReactNode } from "react";
import { Field, type FieldControlAttributes } from "../Field";
import { cx } from "../cx";
import { FileInput } from "./FileInput";
import type { FileField, UploadFile } from "./form-parts";
import type { FormRendererLabels } from "./labels";
import { SignatureInput } from "./SignatureInput";
import styles from "./FormRenderer.module.css";

/** The id of a field's focusable control: error summary links and focus management use it. */
export function fieldControlId(prefix: string, key: string): string {
  return `${prefix}-${key}`;
}

type Option = string | { value: string; label: string };
const optionValue = (option: Option) => (typeof option === "string" ? option : option.value);
const optionLabel = (option: Option) => (typeof option === "string" ? option : option.label || option.value);

interface FieldControlProps {
  field: FormField;
  idPrefix: string;
  value: unknown;
  problem: FieldProblem | null;
  labels: FormRendererLabels;
  disabled: boolean;
  onChange(value: unknown): void;
  onBlur(): void;
  uploadFile?: UploadFile;
}

/** "12,5" and "12.5" are numbers; anything else stays text, so the validator can name it. */
function parseNumber(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const normalised = trimmed.replace(",", ".");
  return /^-?\d+(\.\d+)?$/.test(normalised) ? Number(normalised) : trimmed;
}

/**
 * One field: its label, help text and error around the control of its type. Choice groups are a
 * fieldset with a legend; errors and help are tied to the control with aria-describedby.
 */
export function FieldControl({
  field,
  idPrefix,
  value,
  problem,
  labels,
  disabled,
  onChange,
  onBlur,
  uploadFile,
}: FieldControlProps) {
  if (field.type === "heading") return <h2 className={styles.heading}>{field.label}</h2>;
  if (field.type === "paragraph") return <p className={styles.paragraph}>{field.label}</p>;
  if (field.type === "score")
    return <ScoreOutput field={field} idPrefix={idPrefix} state={value as ScoreState | undefined} labels={labels} />;

  const key = field.key!;
  const required = field.required ?? false;
  const field_ = {
    id: fieldControlId(idPrefix, key),
    label: field.label,
    hint: field.helpText || undefined,
    error: problem ? labels.problem(problem, field) : undefined,
    required,
    marks: { required: labels.requiredMark, optional: labels.optional },
    errorClassName: styles.error,
    "data-field-key": key,
    "data-field-type": field.type,
  };
  const rest = { name: key, disabled, "aria-required": required || undefined, onBlur };

  /** Label, hint, the control, error. */
  const wrap = (control: (attributes: FieldControlAttributes) => ReactNode) => (
    <Field {...field_} className={styles.field}>
      {control}
    </Field>
  );

  /** A fieldset: the legend names the choices, which sit in one column. */
  const group = (children: (attributes: FieldControlAttributes) => ReactNode) => (
    <Field {...field_} layout="group" className={styles.field}>
      {(attributes) => <div className={styles.choices}>{children(attributes)}</div>}
    </Field>
  );

  switch (field.type) {
    case "text":
    case "email":
    case "phone":
      return wrap((attributes) => (
        <input
          {...attributes}
          {...rest}
          className="cs-input"
          type={field.type === "phone" ? "tel" : field.type}
          inputMode={field.type === "phone" ? "tel" : field.type === "email" ? "email" : undefined}
          autoComplete={field.type === "phone" ? "tel" : field.type === "email" ? "email" : undefined}
          placeholder={field.placeholder}
          maxLength={field.maxLength}
          value={typeof value === "string" ? value : ""}
          onChange={(event) => onChange(event.target.value)}
        />
      ));
    case "textarea":
      return wrap((attributes) => (
        <>
          <textarea
            {...attributes}
            {...rest}
            className={cx("cs-input", styles.textarea)}
            rows={4}
            placeholder={field.placeholder}
            value={typeof value === "string" ? value : ""}
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
      ));
    case "number":
      return wrap((attributes) => (
        <NumberInput
          common={{ ...attributes, ...rest }}
          placeholder={field.placeholder}
          value={value}
          onChange={onChange}
        />
      ));
    case "date":
      return wrap((attributes) => (
        <input
          {...attributes}
          {...rest}
          className={cx("cs-input", styles.date)}
          type="date"
          min={field.min}
          max={field.max}
          value={typeof value === "string" ? value : ""}
          onChange={(event) => onChange(event.target.value)}
        />
      ));
    case "select":
      return wrap((attributes) => (
        <select
          {...attributes}
          {...rest}
          className="cs-input"
          value={typeof value === "string" ? value : ""}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">{field.placeholder ?? labels.selectPlaceholder}</option>
          {field.options.map((option) => (
            <option key={optionValue(option)} value={optionValue(option)}>
              {optionLabel(option)}
            </option>
          ))}
        </select>
      ));
    case "radio":
      return group(({ id, "aria-invalid": invalid }) =>
        field.options.map((option, index) => (
          <label key={optionValue(option)} className={styles.choice}>
            <input
              type="radio"
              id={index === 0 ? id : undefined}
              name={key}
              value={optionValue(option)}
              checked={value === optionValue(option)}
              disabled={disabled}
              aria-invalid={invalid}
              onChange={() => onChange(optionValue(option))}
              onBlur={onBlur}
            />
            <span>{optionLabel(option)}</span>
          </label>
        )),
      );
    case "multiselect": {
      const selected = Array.isArray(value) ? (value as unknown[]) : [];
      return group(({ id, "aria-invalid": invalid }) =>
        field.options.map((option, index) => {
          const v = optionValue(option);
          return (
            <label key={v} className={styles.choice}>
              <input
                type="checkbox"
                id={index === 0 ? id : undefined}
                name={key}
                value={v}
                checked={selected.includes(v)}
                disabled={disabled}
                aria-invalid={invalid}
                onChange={(event) =>
                  onChange(event.target.checked ? [...selected, v] : selected.filter((s) => s !== v))
                }
                onBlur={onBlur}
              />
              <span>{optionLabel(option)}</span>
            </label>
          );
        }),
      );
    }
    case "checkbox":
      return (
        <Field {...field_} layout="inline" className={styles.field} labelClassName={cx(styles.choice, styles.single)}>
          {(attributes) => (
            <input
              {...attributes}
              {...rest}
              type="checkbox"
              checked={value === true}
              onChange={(event) => onChange(event.target.checked)}
            />
          )}
        </Field>
      );
    case "file":
      return group(({ id, "aria-describedby": describedBy, "aria-invalid": invalid }) => (
        <FileInput
          field={field as FileField}
          id={id}
          value={value}
          labels={labels}
          disabled={disabled}
          describedBy={describedBy}
          invalid={invalid}
          onChange={onChange}
          onBlur={onBlur}
          uploadFile={uploadFile}
        />
      ));
    case "signature":
      return group(({ id }) => (
        <SignatureInput
          id={id}
          value={value}
          labels={labels.signature}
          disabled={disabled}
          onChange={onChange}
          onBlur={onBlur}
        />
      ));
  }
}

/**
 * A score field: read-only, its sum and band as the answers change (the renderer computes it
 * with form-scores.ts; the server computes it again at submit). Announced politely.
 */
function ScoreOutput({
  field,
  idPrefix,
  state,
  labels,
}: {
  field: Extract<FormField, { type: "score" }>;
  idPrefix: string;
  state: ScoreState | undefined;
  labels: FormRendererLabels;
}) {
  const id = fieldControlId(idPrefix, field.key);
  const fill = (text: string, params: Record<string, string | number>) =>
    text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ""));
  const value = state?.value;
  return (
    <div className={cx(styles.field, styles.score)} data-field-key={field.key} data-field-type="score">
      <span id={`${id}-label`} className={styles.scoreLabel}>
        {field.label}
      </span>
      <output id={id} aria-labelledby={`${id}-label`} aria-live="polite" className={styles.scoreValue}>
        {value ? (
          <>
            <strong>{fill(labels.score.points, { score: value.score })}</strong>{" "}
            {value.band ? <span className={styles.scoreBand}>{value.band}</span> : null}
          </>
        ) : (
          <span className={styles.scorePending}>
            {fill(labels.score.incomplete, { answered: state?.answered ?? 0, total: state?.total ?? 0 })}
          </span>
        )}
      </output>
      {field.helpText ? <p className={styles.scoreHint}>{field.helpText}</p> : null}
    </div>
  );
}

/** Keeps what the patient typed ("12," on the way to "12,5") while the value is a number. */
function NumberInput({
  common,
  placeholder,
  value,
  onChange,
}: {
  common: Record<string, unknown>;
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
