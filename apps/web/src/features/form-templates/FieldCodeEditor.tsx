"use client";

import type { CodableField, FormField } from "@clinsign/contracts";
import { Field, TextField } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import { fieldCodeInput, withFieldCode, type FieldCodeInput } from "./builder-fields";
import styles from "./builder.module.css";

/**
 * What a codable field measures (e.g. LOINC 44261-6 for the PHQ-9 total, 29463-7 for body
 * weight): exported as the Questionnaire item's code, and each answer, or the score, becomes an
 * Observation of the clinical record (docs/fhir.md). An empty code: none.
 */
export function FieldCodeEditor({
  field,
  error,
  onChange,
}: {
  field: CodableField;
  error: string | undefined;
  onChange(field: FormField): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const input = fieldCodeInput(field);
  const set = (patch: Partial<FieldCodeInput>) => onChange(withFieldCode(field, patch));
  const score = field.type === "score";
  return (
    <Field
      layout="group"
      className={styles.condition}
      label={b.scoreCode}
      hint={score ? b.scoreCodeHint : b.answerCodeHint}
      error={error}
    >
      {() => (
        <div className={styles.conditionRow}>
          <TextField
            label={b.scoreCodeSystem}
            inputMode="url"
            value={input.system}
            onChange={(event) => set({ system: event.target.value })}
          />
          <TextField
            label={b.scoreCodeValue}
            value={input.code}
            onChange={(event) => set({ code: event.target.value })}
          />
          <TextField
            label={b.scoreCodeDisplay}
            value={input.display}
            onChange={(event) => set({ display: event.target.value })}
          />
        </div>
      )}
    </Field>
  );
}
