"use client";

import { Badge, Button } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./builder.module.css";

/**
 * The builder's top bar: back to the list, whether all is saved, JSON export and import, the
 * preview page, and Save.
 */
export function BuilderTopbar({
  identifier,
  dirty,
  saving,
  canSave,
  onExport,
  onImport,
  onSave,
}: {
  identifier: string;
  dirty: boolean;
  saving: boolean;
  /** Changed, valid and titled. */
  canSave: boolean;
  onExport(): void;
  onImport(file: File | undefined): void;
  onSave(): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  return (
    <div className={styles.topbar}>
      <a href="/form-templates" className={styles.back}>
        ← {b.back}
      </a>
      <div className={styles.topActions}>
        <span className={styles.saveState} role="status">
          {dirty ? <Badge tone="warning">{b.unsaved}</Badge> : <span className="cs-hint">{b.allSaved}</span>}
        </span>
        <Button onClick={onExport}>{b.exportJson}</Button>
        <label className="cs-button cs-button--secondary">
          {b.importJson}
          <input
            type="file"
            accept="application/json,.json"
            className="cs-visually-hidden"
            onChange={(event) => onImport(event.target.files?.[0])}
          />
        </label>
        <a
          className="cs-button cs-button--secondary"
          href={`/form-templates/${encodeURIComponent(identifier)}/preview`}
        >
          {t.formTemplates.previewAction}
        </a>
        <Button variant="primary" busy={saving} disabled={!canSave} onClick={onSave}>
          {saving ? b.saving : b.save}
        </Button>
      </div>
    </div>
  );
}
