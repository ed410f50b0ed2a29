"use client";

import { Button, SelectField } from "@clinsign/ui";
import type { PdfFieldRect, PdfPageGeometry } from "@clinsign/ui/pdf-pages";
import { fieldName, pageNumbers, type EditorField, type FieldEditorLabels } from "./editor-fields";
import { NumberField, RoleChoice } from "./FieldInputs";
import { centredField, clampToPage } from "./field-geometry";
import styles from "./field-editor.module.css";

const COORDINATES = ["x", "y", "width", "height"] as const;

/** The field kept on its page once that page's size is known (before, as typed). */
const clampedIfKnown = (field: EditorField, page: PdfPageGeometry | undefined): PdfFieldRect =>
  page ? clampToPage(field, page) : field;

/**
 * The panel beside the pages: how the keyboard works, "Add field" on a chosen page, and every
 * field with its signer, required flag, stored numbers and remove button.
 */
export function FieldListPanel({
  labels,
  helpId,
  fields,
  geometry,
  selected,
  typingRole,
  addPage,
  full,
  announcement,
  onAddPage,
  onAdd,
  onTyping,
  onChange,
  onRemove,
}: {
  labels: FieldEditorLabels;
  /** The keyboard help's id, which the field handles refer to; the panel's ids start with it. */
  helpId: string;
  fields: readonly EditorField[];
  geometry: Record<number, PdfPageGeometry>;
  selected: number | null;
  typingRole: ReadonlySet<number>;
  addPage: number;
  full: boolean;
  announcement: string;
  onAddPage(page: number): void;
  onAdd(field: PdfFieldRect): void;
  onTyping(index: number, typing: boolean): void;
  onChange(index: number, change: Partial<EditorField>): void;
  onRemove(index: number): void;
}) {
  return (
    <aside className={styles.panel} aria-label={labels.fieldsTitle}>
      <h3 className={styles.panelTitle}>{labels.fieldsTitle}</h3>
      <p id={helpId} className="cs-hint">
        {labels.keyboardHelp}
      </p>
      <AddFieldRow
        id={`${helpId}-add-page`}
        labels={labels}
        geometry={geometry}
        page={addPage}
        full={full}
        onPage={onAddPage}
        onAdd={onAdd}
      />
      {full ? <p className="cs-hint">{labels.maxFields}</p> : null}
      {fields.length === 0 ? <p className={styles.empty}>{labels.noFields}</p> : null}
      <ol className={styles.fieldList}>
        {fields.map((field, index) => (
          <FieldListItem
            key={index}
            id={`${helpId}-${index}`}
            field={field}
            name={fieldName(field, index, labels)}
            selected={selected === index}
            typing={typingRole.has(index)}
            labels={labels}
            geometry={geometry}
            onTyping={(typing) => onTyping(index, typing)}
            onChange={(change) => onChange(index, change)}
            onRemove={() => onRemove(index)}
          />
        ))}
      </ol>
      <p className="cs-hint">{labels.pointsHint}</p>
      <p role="status" aria-live="polite" className="cs-visually-hidden">
        {announcement}
      </p>
    </aside>
  );
}

/** "Add field" on a chosen page, centred, for placing a field without a pointer. */
function AddFieldRow({
  id,
  labels,
  geometry,
  page,
  full,
  onPage,
  onAdd,
}: {
  id: string;
  labels: FieldEditorLabels;
  geometry: Record<number, PdfPageGeometry>;
  page: number;
  full: boolean;
  onPage(page: number): void;
  onAdd(field: PdfFieldRect): void;
}) {
  const pageCount = Object.keys(geometry).length;
  const pageGeometry = geometry[page];
  return (
    <div className={styles.addRow}>
      <SelectField
        id={id}
        label={labels.addFieldOnPage}
        options={pageNumbers(Math.max(pageCount, 1)).map((number) => ({ value: String(number) }))}
        value={String(page)}
        onChange={(event) => onPage(Number(event.target.value))}
        disabled={pageCount === 0}
      />
      <Button
        variant="secondary"
        disabled={full || !pageGeometry}
        onClick={() => pageGeometry && onAdd(centredField(page, pageGeometry))}
      >
        {labels.addField}
      </Button>
    </div>
  );
}

/** One field in the list: its signer, its page and numbers (PDF points), and its remove button. */
function FieldListItem({
  id,
  field,
  name,
  selected,
  typing,
  labels,
  geometry,
  onTyping,
  onChange,
  onRemove,
}: {
  id: string;
  field: EditorField;
  name: string;
  selected: boolean;
  typing: boolean;
  labels: FieldEditorLabels;
  geometry: Record<number, PdfPageGeometry>;
  onTyping(typing: boolean): void;
  onChange(change: Partial<EditorField>): void;
  onRemove(): void;
}) {
  const pageCount = Object.keys(geometry).length;
  return (
    <li className={styles.fieldItem} data-selected={selected || undefined}>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>{name}</legend>
        <RoleChoice id={id} field={field} typing={typing} labels={labels} onTyping={onTyping} onChange={onChange} />
        <div className={styles.numbers}>
          <SelectField
            id={`${id}-page`}
            label={labels.page}
            options={pageNumbers(Math.max(pageCount, field.page)).map((page) => ({ value: String(page) }))}
            value={String(field.page)}
            onChange={(event) => {
              const number = Number(event.target.value);
              onChange(clampedIfKnown({ ...field, page: number }, geometry[number]));
            }}
          />
          {COORDINATES.map((key) => (
            <NumberField
              key={key}
              id={`${id}-${key}`}
              label={labels[key]}
              value={field[key]}
              onCommit={(value) => onChange(clampedIfKnown({ ...field, [key]: value }, geometry[field.page]))}
            />
          ))}
        </div>
        <Button size="small" variant="danger-outline" onClick={onRemove} aria-label={`${labels.removeField}: ${name}`}>
          {labels.removeField}
        </Button>
      </fieldset>
    </li>
  );
}
