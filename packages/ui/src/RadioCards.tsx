"use client";

import type { ReactNode } from "react";

export interface RadioCardOption<Value extends string> {
  value: Value;
  label: ReactNode;
  description?: ReactNode;
}

export interface RadioCardsProps<Value extends string> {
  legend: ReactNode;
  name: string;
  value: Value;
  options: ReadonlyArray<RadioCardOption<Value>>;
  onChange(value: Value): void;
  disabled?: boolean;
  error?: string | null;
}

/** A single choice among a few options, shown as bordered cards inside a fieldset. */
export function RadioCards<Value extends string>({
  legend,
  name,
  value,
  options,
  onChange,
  disabled,
  error,
}: RadioCardsProps<Value>) {
  const errorId = error ? `${name}-error` : undefined;
  return (
    <fieldset className="cs-fieldset" aria-describedby={errorId} disabled={disabled}>
      <legend className="cs-label">{legend}</legend>
      <div className="cs-radio-cards">
        {options.map((option) => (
          <label key={option.value} className="cs-radio-card">
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={option.value === value}
              onChange={() => onChange(option.value)}
            />
            <span className="cs-radio-card__text">
              <span className="cs-radio-card__label">{option.label}</span>
              {option.description ? <span className="cs-hint">{option.description}</span> : null}
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p id={errorId} className="cs-field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
