import { useId, type HTMLAttributes, type ReactNode } from "react";
import { cx } from "./cx";

/** What a Field hands its control: spread them on the input, select or textarea. */
export interface FieldControlAttributes {
  id: string;
  "aria-describedby": string | undefined;
  "aria-invalid": true | undefined;
}

/** How a required or optional field says so; without them the label stays as given. */
export interface FieldMarks {
  /** Read by screen readers after the visible "*" of a required field, e.g. "required". */
  required: string;
  /** Shown after an optional field's label, e.g. "optional". */
  optional?: string;
}

export interface FieldProps extends Omit<HTMLAttributes<HTMLElement>, "children" | "id"> {
  label: ReactNode;
  /** Hides the label visually; it stays the control's accessible name. */
  hideLabel?: boolean;
  hint?: ReactNode;
  /** Puts the hint under the control: a note on the value chosen rather than on what to enter. */
  hintAfter?: boolean;
  error?: ReactNode;
  /** Makes the error an alert, for one that comes from the server after a submit rather than as the person types. */
  announceError?: boolean;
  required?: boolean;
  marks?: FieldMarks;
  /** The control's id; a generated one when absent. */
  id?: string;
  /**
   * "stacked": label, hint, control, error; "group": a fieldset whose legend is the label, for a set
   * of choices (the fieldset carries the description and the invalid state; a single control
   * inside, like a file input, may repeat them); "inline": the label
   * wraps the control and its text, for a single checkbox.
   */
  layout?: "stacked" | "group" | "inline";
  labelClassName?: string;
  errorClassName?: string;
  children(control: FieldControlAttributes): ReactNode;
}

/** What a labelled single control (TextField, SelectField) takes besides its element's attributes. */
export interface LabelledControlProps {
  label: ReactNode;
  /** Hides the label visually; it stays the control's accessible name. */
  hideLabel?: boolean;
  hint?: ReactNode;
  /** The hint under the control (a note on the value chosen). */
  hintAfter?: boolean;
  error?: string | null;
  /** With marks, a required field's label gets "*" (and an optional one its note). */
  marks?: FieldMarks;
  /** The control's id; a generated one when absent. */
  id?: string;
  /** Extra classes of the field's wrapper, not of the control. */
  className?: string;
}

/**
 * Splits a labelled control's props into what its Field takes and what goes on the element;
 * `required` goes to both (the Field marks the label, the element is required).
 */
export function splitFieldProps<Props extends LabelledControlProps & { required?: boolean }>(props: Props) {
  const { label, hideLabel, hint, hintAfter, error, marks, id, className, ...control } = props;
  const field = { label, hideLabel, hint, hintAfter, error, marks, id, className, required: props.required };
  return { field, control };
}

/**
 * The one place a form control gets its label, hint, error and required mark, and the ids that
 * tie them together (label `for`, aria-describedby with the hint and the error, aria-invalid).
 * TextField, SelectField, CopyField and the form renderer's controls are built on it.
 */
export function Field({
  label,
  hideLabel,
  hint,
  hintAfter,
  error,
  announceError,
  required,
  marks,
  id,
  layout = "stacked",
  className,
  labelClassName,
  errorClassName,
  children,
  ...rest
}: FieldProps) {
  const generated = useId();
  const controlId = id ?? `field${generated}`;
  const hintId = hint ? `${controlId}-hint${generated}` : undefined;
  const errorId = error ? `${controlId}-error${generated}` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const invalid = error ? (true as const) : undefined;
  const labelText = (
    <>
      {label}
      {marks && required ? (
        <>
          <span className="cs-field__required" aria-hidden="true">
            {" *"}
          </span>
          <span className="cs-visually-hidden"> ({marks.required})</span>
        </>
      ) : null}
      {marks?.optional && !required ? <span className="cs-field__optional"> ({marks.optional})</span> : null}
    </>
  );
  const hintNode = hint ? (
    <div id={hintId} className="cs-hint">
      {hint}
    </div>
  ) : null;
  const errorNode = error ? (
    <div id={errorId} className={cx("cs-field-error", errorClassName)} role={announceError ? "alert" : undefined}>
      {error}
    </div>
  ) : null;
  const labelClass = cx(hideLabel ? "cs-visually-hidden" : "cs-label", labelClassName);

  if (layout === "group")
    return (
      <fieldset
        {...rest}
        className={cx("cs-field-group", className)}
        aria-describedby={describedBy}
        aria-invalid={invalid}
      >
        <legend className={labelClass}>{labelText}</legend>
        {hintNode}
        {children({ id: controlId, "aria-describedby": describedBy, "aria-invalid": invalid })}
        {errorNode}
      </fieldset>
    );

  const control = children({ id: controlId, "aria-describedby": describedBy, "aria-invalid": invalid });
  return (
    <div {...rest} className={cx("cs-field", className)}>
      {layout === "inline" ? (
        <label htmlFor={controlId} className={labelClassName}>
          {control}
          <span>{labelText}</span>
        </label>
      ) : (
        <label htmlFor={controlId} className={labelClass}>
          {labelText}
        </label>
      )}
      {hintAfter ? null : hintNode}
      {layout === "inline" ? null : control}
      {hintAfter ? hintNode : null}
      {errorNode}
    </div>
  );
}
