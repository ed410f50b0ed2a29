import type { ReactNode, Ref, SelectHTMLAttributes } from "react";
import { cx } from "./cx";
import { Field, type FieldMarks } from "./Field";

/** One choice of a SelectField; `label` defaults to the value. */
export interface SelectOption {
  value: string;
  label?: string;
  disabled?: boolean;
  /** The option's language when it differs from the page's ("Deutsch" on an English page). */
  lang?: string;
}

export interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "children"> {
  label: ReactNode;
  /** Hides the label visually; it stays the select's accessible name. */
  hideLabel?: boolean;
  hint?: ReactNode;
  /** The hint under the select (a note on the value chosen). */
  hintAfter?: boolean;
  error?: string | null;
  marks?: FieldMarks;
  id?: string;
  /** The first option, with the empty value: "All statuses", "Choose a document…". */
  placeholder?: string;
  options: ReadonlyArray<SelectOption>;
  /**
   * Keeps a value that is not (or no longer) among the options selectable, shown as itself: a
   * filter from a shared link naming a template that was since archived.
   */
  keepUnknownValue?: boolean;
  /** Extra classes of the field's wrapper (the select itself is `cs-input`). */
  className?: string;
  selectClassName?: string;
  ref?: Ref<HTMLSelectElement>;
}

/** A labelled native select: a Field around a `<select>` built from options. */
export function SelectField({
  label,
  hideLabel,
  hint,
  hintAfter,
  error,
  marks,
  id,
  placeholder,
  options,
  keepUnknownValue,
  className,
  selectClassName,
  ref,
  ...select
}: SelectFieldProps) {
  const value = typeof select.value === "string" ? select.value : undefined;
  const unknown = keepUnknownValue && value && !options.some((option) => option.value === value) ? value : null;
  return (
    <Field
      id={id}
      label={label}
      hideLabel={hideLabel}
      hint={hint}
      hintAfter={hintAfter}
      error={error}
      marks={marks}
      required={select.required}
      className={className}
    >
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
