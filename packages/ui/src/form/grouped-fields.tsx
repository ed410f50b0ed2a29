"use client";

// The fields shown as a fieldset whose legend is the label: choices, files and the signature.
import type { ReactNode } from "react";
import { Field, type FieldControlAttributes } from "../Field";
import { FileInput } from "./FileInput";
import { optionLabel, optionValue, type FieldFrame, type FieldKindProps } from "./field-frame";
import type { UploadFile } from "./form-parts";
import { SignatureInput } from "./SignatureInput";
import styles from "./FormRenderer.module.css";

/** A fieldset: the legend names the choices, which sit in one column. */
function FieldGroup({
  frame,
  children,
}: {
  frame: FieldFrame;
  children(attributes: FieldControlAttributes): ReactNode;
}) {
  return (
    <Field {...frame} layout="group">
      {(attributes) => <div className={styles.choices}>{children(attributes)}</div>}
    </Field>
  );
}

/** Radio buttons, one per option; the first carries the field's id (the error summary's target). */
export function RadioChoices({ field, frame, control, value, onChange }: FieldKindProps<"radio">) {
  return (
    <FieldGroup frame={frame}>
      {({ id, "aria-invalid": invalid }) =>
        field.options.map((option, index) => (
          <label key={optionValue(option)} className={styles.choice}>
            <input
              type="radio"
              id={index === 0 ? id : undefined}
              name={control.name}
              value={optionValue(option)}
              checked={value === optionValue(option)}
              disabled={control.disabled}
              aria-invalid={invalid}
              onChange={() => onChange(optionValue(option))}
              onBlur={control.onBlur}
            />
            <span>{optionLabel(option)}</span>
          </label>
        ))
      }
    </FieldGroup>
  );
}

/** Checkboxes, one per option; the answer is the list of the options ticked. */
export function MultiselectChoices({ field, frame, control, value, onChange }: FieldKindProps<"multiselect">) {
  const selected = Array.isArray(value) ? (value as unknown[]) : [];
  return (
    <FieldGroup frame={frame}>
      {({ id, "aria-invalid": invalid }) =>
        field.options.map((option, index) => {
          const v = optionValue(option);
          return (
            <label key={v} className={styles.choice}>
              <input
                type="checkbox"
                id={index === 0 ? id : undefined}
                name={control.name}
                value={v}
                checked={selected.includes(v)}
                disabled={control.disabled}
                aria-invalid={invalid}
                onChange={(event) =>
                  onChange(event.target.checked ? [...selected, v] : selected.filter((s) => s !== v))
                }
                onBlur={control.onBlur}
              />
              <span>{optionLabel(option)}</span>
            </label>
          );
        })
      }
    </FieldGroup>
  );
}

/** A file field in its fieldset: the picker repeats the fieldset's description and state. */
export function FileUploadField({
  field,
  frame,
  control,
  value,
  labels,
  onChange,
  uploadFile,
}: FieldKindProps<"file"> & { uploadFile?: UploadFile }) {
  return (
    <FieldGroup frame={frame}>
      {({ id, "aria-describedby": describedBy, "aria-invalid": invalid }) => (
        <FileInput
          field={field}
          id={id}
          value={value}
          labels={labels}
          disabled={control.disabled}
          describedBy={describedBy}
          invalid={invalid}
          onChange={onChange}
          onBlur={control.onBlur}
          uploadFile={uploadFile}
        />
      )}
    </FieldGroup>
  );
}

/** A signature field in its fieldset: drawn or typed (see SignatureInput). */
export function SignatureField({ frame, control, value, labels, onChange }: FieldKindProps<"signature">) {
  return (
    <FieldGroup frame={frame}>
      {({ id }) => (
        <SignatureInput
          id={id}
          value={value}
          labels={labels.signature}
          disabled={control.disabled}
          onChange={onChange}
          onBlur={control.onBlur}
        />
      )}
    </FieldGroup>
  );
}
