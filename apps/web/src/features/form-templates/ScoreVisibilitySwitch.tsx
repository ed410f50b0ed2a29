"use client";

import type { TemplateSchema } from "@clinsign/contracts";
import { scoresShownToPatient } from "@clinsign/contracts/form-flags";
import { Switch } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";

/**
 * The template's "Show scores to the patient" setting (`schema.scoresShownToPatient`; absent
 * means shown), offered once the form has a score field. Off, the patient's form shows no score
 * field at all; the server still computes the scores and staff see them everywhere. On removes
 * the property again, so a template that never turned it off keeps its schema as it was.
 */
export function ScoreVisibilitySwitch({
  schema,
  onChange,
  disabled,
}: {
  schema: TemplateSchema;
  onChange(schema: TemplateSchema): void;
  disabled?: boolean;
}) {
  const { t } = useI18n();
  const s = t.formTemplates.scoreVisibility;
  if (!schema.fields.some((field) => field.type === "score")) return null;
  const shown = scoresShownToPatient(schema);
  return (
    <Switch
      id="template-scores-shown"
      label={s.label}
      description={shown ? s.shownHint : s.hiddenHint}
      checked={shown}
      disabled={disabled}
      onChange={(checked) => {
        const { scoresShownToPatient: _previous, ...rest } = schema;
        onChange(checked ? rest : { ...rest, scoresShownToPatient: false });
      }}
    />
  );
}
