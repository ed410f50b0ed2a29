import type { InputHTMLAttributes, Ref } from "react";
import { cx } from "./cx";
import { Field, splitFieldProps, type LabelledControlProps } from "./Field";

export interface TextFieldProps
  extends Omit<InputHTMLAttributes<HTMLInputElement>, keyof LabelledControlProps>, LabelledControlProps {
  mono?: boolean;
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with an optional hint and error message: a Field around an input. */
export function TextField({ mono, ref, ...props }: TextFieldProps) {
  const { field, control: input } = splitFieldProps(props);
  return (
    <Field {...field}>
      {(attributes) => (
        <input ref={ref} {...attributes} className={cx("cs-input", mono && "cs-input--mono")} {...input} />
      )}
    </Field>
  );
}
