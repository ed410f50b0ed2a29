"use client";

import type { FieldProblem, FormField } from "@clinsign/contracts";
import type { ScoreState } from "@clinsign/contracts/form-scores";
import { fieldControlId, fieldFrame } from "./field-frame";
import { CheckboxInput, DateInput, NumberField, SelectInput, TextAreaInput, TextInput } from "./field-inputs";
import type { UploadFile } from "./form-parts";
import { FileUploadField, MultiselectChoices, RadioChoices, SignatureField } from "./grouped-fields";
import type { FormRendererLabels } from "./labels";
import { ScoreOutput } from "./ScoreOutput";
import styles from "./FormRenderer.module.css";

export { fieldControlId } from "./field-frame";

interface FieldControlProps {
  field: FormField;
  idPrefix: string;
  value: unknown;
  problem: FieldProblem | null;
  labels: FormRendererLabels;
  disabled: boolean;
  onChange(value: unknown): void;
  onBlur(): void;
  uploadFile?: UploadFile;
}

/**
 * One field: its label, help text and error around the control of its type (one component per
 * kind). Choice groups are a fieldset with a legend; errors and help are tied to the control with
 * aria-describedby.
 */
export function FieldControl({
  field,
  idPrefix,
  value,
  problem,
  labels,
  disabled,
  onChange,
  onBlur,
  uploadFile,
}: FieldControlProps) {
  if (field.type === "heading") return <h2 className={styles.heading}>{field.label}</h2>;
  if (field.type === "paragraph") return <p className={styles.paragraph}>{field.label}</p>;
  if (field.type === "score")
    return (
      <ScoreOutput
        field={field}
        id={fieldControlId(idPrefix, field.key)}
        state={value as ScoreState | undefined}
        labels={labels}
      />
    );

  const frame = fieldFrame(field, idPrefix, problem, labels);
  const control = { name: field.key, disabled, "aria-required": frame.required || undefined, onBlur };
  const kind = { frame, control, value, labels, onChange };
  switch (field.type) {
    case "text":
    case "email":
    case "phone":
      return <TextInput field={field} {...kind} />;
    case "textarea":
      return <TextAreaInput field={field} {...kind} />;
    case "number":
      return <NumberField field={field} {...kind} />;
    case "date":
      return <DateInput field={field} {...kind} />;
    case "select":
      return <SelectInput field={field} {...kind} />;
    case "radio":
      return <RadioChoices field={field} {...kind} />;
    case "multiselect":
      return <MultiselectChoices field={field} {...kind} />;
    case "checkbox":
      return <CheckboxInput field={field} {...kind} />;
    case "file":
      return <FileUploadField field={field} {...kind} uploadFile={uploadFile} />;
    case "signature":
      return <SignatureField field={field} {...kind} />;
  }
}
