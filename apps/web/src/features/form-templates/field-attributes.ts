import type { FormField } from "@clinsign/contracts";

// Reading and writing one attribute of a field, as the field editor's inputs do.

type Attrs = Record<string, unknown>;

/** `undefined` for an empty input, so optional attributes disappear instead of being "". */
export const optionalText = (value: string) => (value === "" ? undefined : value);

/** The field with attribute `name` set to `value`; `undefined` removes it. */
export function withAttr(field: FormField, name: string, value: unknown): FormField {
  const next = { ...field } as Attrs;
  if (value === undefined) delete next[name];
  else next[name] = value;
  return next as FormField;
}

/** A text attribute for an input: "" when it is not set. */
export function attrText(field: FormField, name: string): string {
  const value = (field as Attrs)[name];
  return typeof value === "string" ? value : "";
}

/** A number attribute for an input: "" when it is not set. */
export function attrNumber(field: FormField, name: string): string {
  const value = (field as Attrs)[name];
  return typeof value === "number" ? String(value) : "";
}

/** Attributes behind "More options": technical or rarely needed; a problem in one opens them. */
export const ADVANCED_ATTRIBUTES = [
  "key",
  "placeholder",
  "min",
  "max",
  "minLength",
  "maxLength",
  "pattern",
  "accept",
  "maxSizeMb",
];
