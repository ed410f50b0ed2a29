"use client";

import type { FormField, TemplateSchema } from "@clinsign/contracts";
import { Button, Icon, SelectField } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import {
  createField,
  fieldTypes,
  isDisplayType,
  moveField,
  type FieldType,
  type ProblemsByIndex,
} from "./builder-model";
import styles from "./builder.module.css";
import { FieldCard } from "./FieldCard";
import { labelInputId } from "./FieldEditor";

/**
 * The template's fields as a list: reordered by drag and drop or with the move buttons (the move
 * is announced and the focus stays on the moved field's button), each field's editor opened in
 * place, and a new field of a chosen type added at the end.
 */
export function FieldListSection({
  schema,
  problems,
  openField,
  dragging,
  newType,
  keyEdited,
  onSchemaChange,
  onAnnounce,
  onFieldOpen,
  onFieldAdd,
  onNewTypeChange,
  onDrag,
  onKeyEdited,
}: {
  schema: TemplateSchema;
  /** Problems by field index, then attribute. */
  problems: ProblemsByIndex;
  openField: string | null;
  /** The index of the field being dragged. */
  dragging: number | null;
  newType: FieldType;
  /** Field ids whose key was typed by hand: their key no longer follows the label. */
  keyEdited: ReadonlySet<string>;
  onSchemaChange(schema: TemplateSchema): void;
  onAnnounce(text: string): void;
  onFieldOpen(fieldId: string | null): void;
  onFieldAdd(field: FormField): void;
  onNewTypeChange(type: FieldType): void;
  onDrag(index: number | null): void;
  onKeyEdited(fieldId: string): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const fields = schema.fields;

  function move(from: number, to: number) {
    if (to < 0 || to >= fields.length) return;
    onSchemaChange(moveField(schema, from, to));
    const label = fields[from]!.label || fields[from]!.key || "";
    onAnnounce(format(b.moved, { label, position: to + 1 }));
    // Focus stays with the moved field's button so the keyboard can keep moving it.
    window.requestAnimationFrame(() =>
      document.getElementById(`move-${fields[from]!.id}-${to < from ? "up" : "down"}`)?.focus(),
    );
  }

  return (
    <section aria-labelledby="fields-heading" className={styles.fieldsSection}>
      <h2 id="fields-heading">{b.fieldsHeading}</h2>
      {fields.length === 0 ? <p className="cs-hint">{b.noFields}</p> : null}
      <ol className={styles.fieldList}>
        {fields.map((field, index) => (
          <FieldCard
            key={field.id}
            field={field}
            index={index}
            schema={schema}
            problems={problems.get(index) ?? {}}
            open={openField === field.id}
            dragged={dragging === index}
            dragActive={dragging !== null}
            keyFollowsLabel={!keyEdited.has(field.id)}
            onSchemaChange={onSchemaChange}
            onMove={(to) => move(index, to)}
            onToggle={() => onFieldOpen(openField === field.id ? null : field.id)}
            onDragStart={() => onDrag(index)}
            onDragEnd={() => onDrag(null)}
            onDrop={() => {
              if (dragging !== null) move(dragging, index);
              onDrag(null);
            }}
            onKeyEdited={() => onKeyEdited(field.id)}
          />
        ))}
      </ol>
      <AddFieldRow fields={fields} newType={newType} onNewTypeChange={onNewTypeChange} onAdd={onFieldAdd} />
    </section>
  );
}

/** The type of a new field and "Add field"; the new field's label then takes the focus. */
function AddFieldRow({
  fields,
  newType,
  onNewTypeChange,
  onAdd,
}: {
  fields: readonly FormField[];
  newType: FieldType;
  onNewTypeChange(type: FieldType): void;
  onAdd(field: FormField): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;

  function add() {
    const field = createField(
      newType,
      isDisplayType(newType) ? b.types[newType] : format(b.newLabel, { type: b.types[newType] }),
      fields,
    );
    onAdd(field);
    // The new field's label takes the focus, its text selected: typing names the field at once.
    // (The card's scroll-margin keeps it clear of the sticky header.)
    window.requestAnimationFrame(() => {
      document.getElementById(`card-${field.id}`)?.scrollIntoView({ block: "start" });
      const input = document.getElementById(labelInputId(field.id));
      if (input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement) {
        input.focus({ preventScroll: true });
        input.select();
      }
    });
  }

  return (
    <div className={styles.addRow}>
      <SelectField
        id="new-field-type"
        label={b.addFieldType}
        options={fieldTypes.map((type) => ({ value: type, label: b.types[type] }))}
        value={newType}
        onChange={(event) => onNewTypeChange(event.target.value as FieldType)}
      />
      <Button onClick={add} icon={<Icon name="plus" />}>
        {b.addField}
      </Button>
    </div>
  );
}
