import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from "react";
import { cx } from "./cx";

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: ReactNode;
  /** Hides the label visually; it stays the input's accessible name. */
  hideLabel?: boolean;
  hint?: ReactNode;
  error?: string | null;
  id?: string;
  mono?: boolean;
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with an optional hint and an error message wired up through aria-describedby. */
export function TextField({ label, hideLabel, hint, error, id, mono, className, ref, ...input }: TextFieldProps) {
  const generated = useId();
  const inputId = id ?? `field${generated}`;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cx("cs-field", className)}>
      <label htmlFor={inputId} className={hideLabel ? "cs-visually-hidden" : "cs-label"}>
        {label}
      </label>
      {hint ? (
        <span id={hintId} className="cs-hint">
          {hint}
        </span>
      ) : null}
      <input
        ref={ref}
        id={inputId}
        className={cx("cs-input", mono && "cs-input--mono")}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {error ? (
        <span id={errorId} className="cs-field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}
