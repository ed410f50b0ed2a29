"use client";

import { cx } from "./cx";
import styles from "./Segmented.module.css";

export interface SegmentedOption<V extends string> {
  value: V;
  label: string;
  /** The option's language, when it names one (a language switch). */
  lang?: string;
}

export interface SegmentedProps<V extends string> {
  /** Accessible name of the group. */
  label: string;
  name: string;
  options: readonly SegmentedOption<V>[];
  value: V;
  onChange(value: V): void;
  disabled?: boolean;
  /** The first option's input id, for focus and error links. */
  id?: string;
  className?: string;
}

/**
 * A choice of two or three, shown as joined buttons: real radio inputs (arrow keys move between
 * them, screen readers announce a radio group) with 44 px targets.
 */
export function Segmented<V extends string>({
  label,
  name,
  options,
  value,
  onChange,
  disabled,
  id,
  className,
}: SegmentedProps<V>) {
  return (
    <div role="radiogroup" aria-label={label} className={cx(styles.group, className)}>
      {options.map((option, index) => (
        <label key={option.value} className={styles.option} lang={option.lang}>
          <input
            type="radio"
            id={index === 0 ? id : undefined}
            name={name}
            checked={value === option.value}
            disabled={disabled}
            onChange={() => onChange(option.value)}
          />
          <span>{option.label}</span>
        </label>
      ))}
    </div>
  );
}
