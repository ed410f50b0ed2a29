"use client";

import type { Template } from "@clinsign/contracts";
import { Card, Field, SelectField } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import type { Draft } from "./builder-model";
import styles from "./builder.module.css";
import { ScoreVisibilitySwitch } from "./ScoreVisibilitySwitch";
import { statusHelp, statusLabel } from "./status";

/** The template's title, description and status, and whether patients see their scores. */
export function TemplateDetailsCard({ draft, onChange }: { draft: Draft; onChange(change: Partial<Draft>): void }) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  return (
    <Card>
      <div className="cs-stack">
        <Field id="template-title" label={b.titleLabel}>
          {(control) => (
            <input
              {...control}
              className={`cs-input ${styles.titleInput}`}
              value={draft.title}
              maxLength={120}
              onChange={(event) => onChange({ title: event.target.value })}
            />
          )}
        </Field>
        <Field id="template-description" label={b.descriptionLabel}>
          {(control) => (
            <textarea
              {...control}
              className="cs-input"
              rows={2}
              maxLength={1000}
              value={draft.description}
              onChange={(event) => onChange({ description: event.target.value })}
            />
          )}
        </Field>
        <SelectField
          id="template-status"
          label={b.status}
          hint={statusHelp(draft.status, t)}
          hintAfter
          options={(["draft", "active", "archived"] as const).map((status) => ({
            value: status,
            label: statusLabel(status, t),
          }))}
          value={draft.status}
          onChange={(event) => onChange({ status: event.target.value as Template["status"] })}
        />
        <ScoreVisibilitySwitch schema={draft.schema} onChange={(schema) => onChange({ schema })} />
      </div>
    </Card>
  );
}
