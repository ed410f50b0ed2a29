"use client";

import { useId, type ReactNode } from "react";

export interface SwitchProps {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  onChange(checked: boolean): void;
  disabled?: boolean;
  name?: string;
  id?: string;
}

/** An on/off setting: a checkbox with the switch role, inside its own <label>. */
export function Switch({ label, description, checked, onChange, disabled, name, id }: SwitchProps) {
  const generated = useId();
  const inputId = id ?? `switch${generated}`;
  const descriptionId = description ? `${inputId}-description` : undefined;
  return (
    <label className="cs-switch" htmlFor={inputId}>
      <input
        id={inputId}
        name={name}
        type="checkbox"
        role="switch"
        className="cs-switch__input"
        checked={checked}
        disabled={disabled}
        aria-checked={checked}
        aria-describedby={descriptionId}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <span className="cs-switch__text">
        <span className="cs-label">{label}</span>
        {description ? (
          <span id={descriptionId} className="cs-hint">
            {description}
          </span>
        ) : null}
      </span>
    </label>
  );
}
