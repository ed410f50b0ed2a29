import type { Ref, SelectHTMLAttributes } from "react";
import { cx } from "./cx";
import { Field, splitFieldProps, type LabelledControlProps } from "./Field";

/** One choice of a SelectField; `label` defaults to the value. */
export interface SelectOption {
  value: string;
  label?: string;
  disabled?: boolean;
  /** The option's language when it differs from the page's ("Deutsch" on an English page). */
  lang?: string;
}

export interface SelectFieldProps
  extends Omit<SelectHTMLAttributes<HTMLSelectElement>, keyof LabelledControlProps | "children">, LabelledControlProps {
  /** The first option, with the empty value: "All statuses", "Choose a document…". */
  placeholder?: string;
  options: ReadonlyArray<SelectOption>;
  /**
   * Keeps a value that is not (or no longer) among the options selectable, shown as itself: a
   * filter from a shared link naming a template that was since archived.
   */
  keepUnknownValue?: boolean;
  /** Classes of the select itself (which is always `cs-input`). */
  selectClassName?: string;
  ref?: Ref<HTMLSelectElement>;
}

/** A labelled native select: a Field around a `<select>` built from options. */
export function SelectField({
  placeholder,
  options,
  keepUnknownValue,
  selectClassName,
  ref,
  ...props
}: SelectFieldProps) {
  const { field, control: select } = splitFieldProps(props);
  const value = typeof select.value === "string" ? select.value : undefined;
  const unknown = keepUnknownValue && value && !options.some((option) => option.value === value) ? value : null;
  return (
    <Field {...field}>
      {(attributes) => (
        <select ref={ref} {...attributes} className={cx("cs-input", selectClassName)} {...select}>
          {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
          {options.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled} lang={option.lang}>
              {option.label ?? option.value}
            </option>
          ))}
          {unknown ? <option value={unknown}>{unknown}</option> : null}
        </select>
      )}
    </Field>
  );
}
