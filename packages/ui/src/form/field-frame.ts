/**
 * What every answerable field's control is built from (FieldControl and the one component per
 * field kind): the Field's props around it, the attributes its element shares, its options.
 */
import type { FieldProblem, FormField } from "@clinsign/contracts";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

/** The id of a field's focusable control: error summary links and focus management use it. */
export function fieldControlId(prefix: string, key: string): string {
  return `${prefix}-${key}`;
}

/** A field that takes an answer (not a heading, a paragraph or a score). */
export type AnswerField = Exclude<FormField, { type: "heading" | "paragraph" | "score" }>;

/** The Field's props of one answerable field: its label, help text, error and required mark. */
export function fieldFrame(
  field: AnswerField,
  idPrefix: string,
  problem: FieldProblem | null,
  labels: FormRendererLabels,
) {
  return {
    id: fieldControlId(idPrefix, field.key),
    label: field.label,
    hint: field.helpText || undefined,
    error: problem ? labels.problem(problem, field) : undefined,
    required: field.required ?? false,
    marks: { required: labels.requiredMark, optional: labels.optional },
    errorClassName: styles.error,
    "data-field-key": field.key,
    "data-field-type": field.type,
    className: styles.field,
  };
}

export type FieldFrame = ReturnType<typeof fieldFrame>;

/** What the control element of every kind carries besides the Field's own attributes. */
export interface ControlBase {
  name: string;
  disabled: boolean;
  "aria-required": true | undefined;
  onBlur(): void;
}

/** The props of one kind's component: its field, its frame and element attributes, its value. */
export interface FieldKindProps<Type extends AnswerField["type"]> {
  field: Extract<AnswerField, { type: Type }>;
  frame: FieldFrame;
  control: ControlBase;
  value: unknown;
  labels: FormRendererLabels;
  onChange(value: unknown): void;
}

type Option = string | { value: string; label: string };
export const optionValue = (option: Option) => (typeof option === "string" ? option : option.value);
export const optionLabel = (option: Option) => (typeof option === "string" ? option : option.label || option.value);

/** A text control's value: what was typed, or empty. */
export const textOf = (value: unknown) => (typeof value === "string" ? value : "");
