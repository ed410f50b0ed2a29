"use client";

import type { Role } from "@clinsign/contracts";
import { SelectField } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./users.module.css";

/** A role picker: the roles the member may hand out, and the current one (shown, not choosable) where it is not among them. */
export function RoleSelect({
  id,
  label,
  value,
  options,
  disabled,
  onChange,
  className,
  hideLabel,
}: {
  id: string;
  label: string;
  value: Role;
  options: readonly Role[];
  disabled?: boolean;
  onChange(role: Role): void;
  className?: string;
  hideLabel?: boolean;
}) {
  const { t } = useI18n();
  return (
    <SelectField
      id={id}
      label={label}
      hideLabel={hideLabel}
      className={className}
      selectClassName={styles.roleSelect}
      value={value}
      disabled={disabled}
      onChange={(event) => onChange(event.currentTarget.value as Role)}
      options={(options.includes(value) ? options : [value, ...options]).map((role) => ({
        value: role,
        label: t.roles[role],
        disabled: !options.includes(role),
      }))}
    />
  );
}
