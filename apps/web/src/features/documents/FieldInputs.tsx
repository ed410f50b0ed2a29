"use client";

import { builtInSignerRoles } from "@clinsign/contracts";
import { SelectField, TextField } from "@clinsign/ui";
import { useState } from "react";
import { isBuiltInRole } from "../signing/roles";
import type { EditorField, FieldEditorLabels } from "./editor-fields";
import styles from "./field-editor.module.css";

/** The role select's choice that shows a text field for the clinic's own role name. */
const OTHER_ROLE = "\u0000other";
/** A clinic's own role name is at most this long (the API's limit). */
const MAX_ROLE_LENGTH = 60;

/**
 * Whose field it is (a built-in role, or "other…" and the clinic's own name) and whether it must
 * be signed. A role of one's own is kept as typed (trimmed when saved by the API).
 */
export function RoleChoice({
  id,
  field,
  typing,
  labels,
  onTyping,
  onChange,
}: {
  id: string;
  field: EditorField;
  typing: boolean;
  labels: FieldEditorLabels;
  onTyping(typing: boolean): void;
  onChange(change: Partial<EditorField>): void;
}) {
  const role = field.role ?? "patient";
  const custom = typing || !isBuiltInRole(role);
  return (
    <div className={styles.roleRow}>
      <SelectField
        id={`${id}-role`}
        label={labels.role}
        options={[
          ...builtInSignerRoles.map((value) => ({ value, label: labels.roles[value] })),
          { value: OTHER_ROLE, label: labels.roleOther },
        ]}
        value={custom ? OTHER_ROLE : role}
        onChange={(event) => {
          const value = event.target.value;
          onTyping(value === OTHER_ROLE);
          onChange({ role: value === OTHER_ROLE ? "" : value });
        }}
      />
      {custom ? (
        <TextField
          id={`${id}-role-name`}
          label={labels.roleName}
          hint={labels.roleNameHint}
          hintAfter
          value={role}
          maxLength={MAX_ROLE_LENGTH}
          autoComplete="off"
          autoFocus={typing && role === ""}
          onChange={(event) => onChange({ role: event.target.value })}
        />
      ) : null}
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={field.required !== false}
          onChange={(event) => onChange({ required: event.target.checked })}
        />
        <span>{labels.required}</span>
      </label>
    </div>
  );
}

/** A number input that keeps what is typed until it is a number, then commits it. */
export function NumberField({
  id,
  label,
  value,
  onCommit,
}: {
  id: string;
  label: string;
  value: number;
  onCommit(value: number): void;
}) {
  const [text, setText] = useState(String(value));
  const [shown, setShown] = useState(value);
  const [focused, setFocused] = useState(false);
  if (value !== shown && !focused) {
    setShown(value);
    setText(String(value));
  }
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="cs-input cs-input--mono"
        type="number"
        inputMode="decimal"
        step="1"
        min="0"
        value={text}
        onFocus={() => setFocused(true)}
        onBlur={() => {
          setFocused(false);
          setShown(value);
          setText(String(value));
        }}
        onChange={(event) => {
          setText(event.target.value);
          const parsed = Number(event.target.value);
          if (event.target.value.trim() !== "" && Number.isFinite(parsed)) onCommit(parsed);
        }}
      />
    </div>
  );
}
