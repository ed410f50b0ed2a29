"use client";

import type { FormField, TemplateSchema } from "@clinsign/contracts";
import { Button, Icon } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { dependents, duplicateField, removeField, replaceField, type FieldType } from "./builder-model";
import styles from "./builder.module.css";
import { describeCondition } from "./ConditionEditor";
import { FieldEditor } from "./FieldEditor";
import { ToolButton } from "./ToolButton";

interface FieldCardProps {
  field: FormField;
  index: number;
  schema: TemplateSchema;
  /** Problems by attribute name. */
  problems: Record<string, string>;
  open: boolean;
  /** This field is being dragged. */
  dragged: boolean;
  /** A field is being dragged: this one takes the drop. */
  dragActive: boolean;
  keyFollowsLabel: boolean;
  onSchemaChange(schema: TemplateSchema): void;
  onMove(to: number): void;
  onToggle(): void;
  onDragStart(): void;
  onDragEnd(): void;
  onDrop(): void;
  onKeyEdited(): void;
}

/**
 * One field of the field list: a drag handle, what it is (label, type, key, condition, who depends
 * on it, its problems), its tools (move, duplicate, remove, edit) and, while open, its editor.
 */
export function FieldCard({
  field,
  index,
  schema,
  problems,
  open,
  dragged,
  dragActive,
  keyFollowsLabel,
  onSchemaChange,
  onMove,
  onToggle,
  onDragStart,
  onDragEnd,
  onDrop,
  onKeyEdited,
}: FieldCardProps) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  return (
    <li
      id={`card-${field.id}`}
      className={styles.fieldCard}
      data-open={open || undefined}
      data-invalid={Object.keys(problems).length > 0 || undefined}
      data-dragging={dragged || undefined}
      onDragOver={(event) => dragActive && event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        onDrop();
      }}
    >
      <div className={styles.fieldHead}>
        <DragHandle fieldId={field.id} onDragStart={onDragStart} onDragEnd={onDragEnd} />
        <FieldSummary field={field} schema={schema} problems={problems} />
        <div className={styles.fieldTools}>
          <FieldTools
            field={field}
            first={index === 0}
            last={index === schema.fields.length - 1}
            onMove={(up) => onMove(up ? index - 1 : index + 1)}
            onDuplicate={() => onSchemaChange(duplicateField(schema, index))}
            onRemove={() => onSchemaChange(removeField(schema, index))}
          />
          <Button size="small" aria-expanded={open} aria-controls={`editor-${field.id}`} onClick={onToggle}>
            {open ? b.closeField : b.editField}
          </Button>
        </div>
      </div>
      {open ? (
        <div id={`editor-${field.id}`}>
          <FieldEditor
            field={field}
            index={index}
            schema={schema}
            problems={problems}
            keyFollowsLabel={keyFollowsLabel}
            onKeyEdited={onKeyEdited}
            onChange={(next: FormField) => onSchemaChange(replaceField(schema, index, next))}
            onSchemaChange={onSchemaChange}
          />
        </div>
      ) : null}
    </li>
  );
}

/** The handle a field is dragged by (the move buttons do the same from the keyboard). */
function DragHandle({ fieldId, onDragStart, onDragEnd }: { fieldId: string; onDragStart(): void; onDragEnd(): void }) {
  const { t } = useI18n();
  return (
    <span
      className={styles.handle}
      draggable
      title={t.formTemplates.builder.dragHandle}
      aria-hidden="true"
      onDragStart={(event) => {
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", fieldId);
        onDragStart();
      }}
      onDragEnd={onDragEnd}
    >
      ⋮⋮
    </span>
  );
}

/** What a field is, in the list: its label, type and key, its condition, who depends on it, its problems. */
function FieldSummary({
  field,
  schema,
  problems,
}: {
  field: FormField;
  schema: TemplateSchema;
  problems: Record<string, string>;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const depending = dependents(schema, field.key);
  return (
    <div className={styles.fieldSummary}>
      <span className={styles.fieldLabel} data-field-label>
        {field.label || "—"}
        {field.required ? <span className={styles.requiredMark}> *</span> : null}
      </span>
      <span className="cs-hint">
        {b.types[field.type as FieldType]}
        {field.key ? <code className={styles.key}>{field.key}</code> : null}
      </span>
      {field.visibleWhen ? (
        <span className={styles.conditionNote}>
          {format(b.shownWhen, { condition: describeCondition(field.visibleWhen, schema, b) })}
        </span>
      ) : null}
      {depending.length > 0 ? (
        <span className={styles.dependsNote}>
          {format(b.dependsOnThis, {
            count: depending.length,
            labels: depending.map((f) => f.label || f.key || f.id).join(", "),
          })}
        </span>
      ) : null}
      {Object.values(problems).map((problem) => (
        <span key={problem} className="cs-field-error">
          {problem}
        </span>
      ))}
    </div>
  );
}

/** A field's move, duplicate and remove buttons, each named for the field ("Move up: Name"). */
function FieldTools({
  field,
  first,
  last,
  onMove,
  onDuplicate,
  onRemove,
}: {
  field: FormField;
  first: boolean;
  last: boolean;
  onMove(up: boolean): void;
  onDuplicate(): void;
  onRemove(): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const named = (action: string) => ({ label: `${action}: ${field.label}`, title: action });
  return (
    <>
      <ToolButton {...named(b.moveUp)} id={`move-${field.id}-up`} disabled={first} onClick={() => onMove(true)}>
        <span aria-hidden="true">↑</span>
      </ToolButton>
      <ToolButton {...named(b.moveDown)} id={`move-${field.id}-down`} disabled={last} onClick={() => onMove(false)}>
        <span aria-hidden="true">↓</span>
      </ToolButton>
      <ToolButton {...named(b.duplicate)} onClick={onDuplicate}>
        <Icon name="copy" />
      </ToolButton>
      <ToolButton {...named(b.remove)} onClick={onRemove}>
        <Icon name="trash" />
      </ToolButton>
    </>
  );
}
