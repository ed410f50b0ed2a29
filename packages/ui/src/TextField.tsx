import type { InputHTMLAttributes, ReactNode, Ref } from "react";
import { cx } from "./cx";
import { Field, type FieldMarks } from "./Field";

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: ReactNode;
  /** Hides the label visually; it stays the input's accessible name. */
  hideLabel?: boolean;
  hint?: ReactNode;
  error?: string | null;
  /** With marks, a required field's label gets "*" (and an optional one its note). */
  marks?: FieldMarks;
  id?: string;
  mono?: boolean;
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with an optional hint and error message: a Field around an input. */
export function TextField({
  label,
  hideLabel,
  hint,
  error,
  marks,
  id,
  mono,
  className,
  ref,
  ...input
}: TextFieldProps) {
  return (
    <Field
      id={id}
      label={label}
      hideLabel={hideLabel}
      hint={hint}
      error={error}
      marks={marks}
      required={input.required}
      className={className}
    >
      {(attributes) => (
        <input ref={ref} {...attributes} className={cx("cs-input", mono && "cs-input--mono")} {...input} />
      )}
    </Field>
  );
}
